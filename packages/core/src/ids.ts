import { hash } from 'node:crypto';
import { PAGE_TYPES, type PageType } from '@cm/contract';

const ID_PREFIX: Record<PageType, string> = { article: 'art_', question: 'qst_' };

/**
 * Ids worked out lately, by what they hash: a visitor page works its page's id out at every request,
 * and a hash costs more there than a look-up. Bounded: emptied when full.
 */
const recentIds = new Map<string, string>();
const RECENT_IDS = 1_000;

/**
 * The site's id for a page, derived from (site, type, slug): stable for the life of the slug, and an
 * upsert needs no lookup to find it. 80 bits of SHA-256 in lowercase base32.
 */
export function pageId(siteId: number, type: PageType, slug: string): string {
  const name = `${siteId}\n${type}\n${slug}`;
  const known = recentIds.get(name);
  if (known !== undefined) return known;
  // The one-shot hash: the same bytes as createHash's, without a Hash object per call.
  const id = ID_PREFIX[type] + base32(hash('sha256', name, 'buffer')).slice(0, 16);
  if (recentIds.size >= RECENT_IDS) recentIds.clear();
  recentIds.set(name, id);
  return id;
}

/** The page type an id was made for, or null when it is no page id of ours. */
export function pageTypeOfId(id: string): PageType | null {
  if (!/^[a-z]{3}_[a-z2-7]{16}$/.test(id)) return null;
  for (const type of PAGE_TYPES) if (id.startsWith(ID_PREFIX[type])) return type;
  return null;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}
