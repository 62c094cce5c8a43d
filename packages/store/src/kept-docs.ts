/*
 * The gzipped documents this container decoded lately (page documents, Search Console days), by the item
 * they were read from, with the stored bytes they were decoded from. A read whose bytes are those very
 * bytes takes the document decoded then, without gunzipping, parsing and checking it again (a warm read
 * of an unchanged page or day): what it returns is what decoding its bytes gives, since only the same
 * bytes are a hit. The documents kept are frozen, so no reader changes one that another reads.
 */

/** The gzipped bytes each kind keeps in all, and the largest document kept (larger ones are decoded at each read). */
export const KEPT_DOC_BYTES_MAX = 1024 * 1024;
export const KEPT_DOC_BYTES_EACH_MAX = 64 * 1024;

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const entry of Object.values(value)) deepFreeze(entry);
  return Object.freeze(value);
}

export class KeptDocs<T> {
  private readonly entries = new Map<string, { bytes: Uint8Array; doc: T }>();
  private bytes = 0;

  /** The document of `item` decoded from `bytes`: the one kept when `bytes` are the ones it came from, else `decode(bytes)`. */
  get(item: string, bytes: Uint8Array, decode: (bytes: Uint8Array) => T): T {
    const kept = this.entries.get(item);
    if (kept && Buffer.compare(kept.bytes, bytes) === 0) return kept.doc;
    const doc = decode(bytes);
    this.forget(item);
    if (bytes.length <= KEPT_DOC_BYTES_EACH_MAX) {
      this.entries.set(item, { bytes, doc: deepFreeze(doc) });
      this.bytes += bytes.length;
      // The oldest first: a Map iterates in the order its keys were set.
      for (const oldest of this.entries.keys()) {
        if (this.bytes <= KEPT_DOC_BYTES_MAX) break;
        this.forget(oldest);
      }
    }
    return doc;
  }

  private forget(item: string): void {
    const kept = this.entries.get(item);
    if (!kept) return;
    this.bytes -= kept.bytes.length;
    this.entries.delete(item);
  }
}
