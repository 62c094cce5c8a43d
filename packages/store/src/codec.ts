/**
 * Page documents are stored gzipped. One that is still too big for a DynamoDB item (400 KB, less the
 * page's other attributes) is split into chunk items that the page item points to by version.
 */
export const INLINE_LIMIT_BYTES = 300 * 1024;
export const CHUNK_BYTES = 300 * 1024;

/**
 * Node's zlib, loaded when a page document is first read or written rather than at cold start, and kept:
 * looking the module up again costs a few µs a call.
 */
let loaded: typeof import('node:zlib') | undefined;
const zlib = () => (loaded ??= process.getBuiltinModule('node:zlib'));

export const encodeJson = (value: unknown): Buffer => zlib().gzipSync(Buffer.from(JSON.stringify(value), 'utf8'));

/** The gzipped JSON's value; its decoder says what it is. */
export const decodeJson = (bytes: Uint8Array): unknown => JSON.parse(zlib().gunzipSync(bytes).toString('utf8'));

export function splitChunks(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) chunks.push(bytes.subarray(i, i + CHUNK_BYTES));
  return chunks;
}
