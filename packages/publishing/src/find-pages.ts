import {
  fieldError,
  isJsonObject,
  LIMITS,
  type FindPagesInput,
  type FindPagesResult,
  type PageList,
  type PageListQuery,
  type PageType,
} from '@cm/contract';
import { pageUrl } from '@cm/core';

/* find_pages (docs/api.md#mcp): the site's pages whose slug and title have every word of a query, from the listing. */

/** One read of the listing (GET /articles, /questions): the site's pages of a type, newest updated_at first. */
export type ListingReader = (
  type: PageType,
  query: Pick<PageListQuery, 'limit' | 'cursor' | 'status'>,
) => Promise<PageList>;

/** Where a find_pages call stopped, for its next_cursor. */
interface PagesCursor {
  /** Index into the types searched. */
  t: number;
  /** The listing's own cursor. */
  c?: string;
}

const isPagesCursor = (value: unknown): value is PagesCursor =>
  isJsonObject(value) &&
  typeof value.t === 'number' &&
  Number.isInteger(value.t) &&
  value.t >= 0 &&
  (value.c === undefined || typeof value.c === 'string');

function decodePagesCursor(cursor: string | undefined): PagesCursor {
  if (!cursor) return { t: 0 };
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (isPagesCursor(value)) return value;
  } catch {
    // answered below
  }
  throw fieldError('body', 'cursor', 'is not a cursor find_pages gave');
}

const encodePagesCursor = (at: PagesCursor): string => Buffer.from(JSON.stringify(at)).toString('base64url');

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * find_pages: the listing (`readListing`), newest first, filtered by the query's words. One call reads
 * at most findPagesScan listing entries in at most 10 listing pages; its cursor resumes where it stopped.
 */
export async function findPages(
  input: FindPagesInput,
  readListing: ListingReader,
  /** Where the site's pages are (siteRoot). */
  siteRoot: string,
): Promise<FindPagesResult> {
  const types: PageType[] = input.type ? [input.type] : ['article', 'question'];
  const wanted = input.query ? words(input.query) : [];
  let at = decodePagesCursor(input.cursor);
  const pages: FindPagesResult['pages'] = [];
  let examined = 0;
  for (let reads = 0; reads < 10 && pages.length < input.limit && examined < LIMITS.findPagesScan; reads++) {
    // Past the last type, the search is done.
    const type = types[at.t];
    if (!type) break;
    const limit = Math.min(input.limit - pages.length, LIMITS.findPagesScan - examined);
    const list = await readListing(type, { limit, cursor: at.c, status: input.status });
    examined += list.items.length;
    for (const item of list.items) {
      const title = item.title ?? item.question ?? '';
      const haystack = `${item.slug.toLowerCase()} ${words(title).join(' ')}`;
      if (wanted.every((w) => haystack.includes(w))) {
        pages.push({
          id: item.id,
          type,
          slug: item.slug,
          title,
          status: item.status,
          live: item.live,
          deleted: item.deleted,
          url: pageUrl(siteRoot, type, item.slug),
          updated_at: item.updated_at,
        });
      }
    }
    at = list.next_cursor ? { t: at.t, c: list.next_cursor } : { t: at.t + 1 };
  }
  const more = at.t < types.length;
  return { pages, examined, next_cursor: more ? encodePagesCursor(at) : null };
}
