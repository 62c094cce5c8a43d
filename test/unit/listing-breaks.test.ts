import { SERVICE_LIMITS } from '@cm/contract';
import { isPageBreak, NEWER_WALK, newerPageStart, pageLength } from '../../packages/core/src/listing-breaks';

/* Where a listing's pages end (core/listing-breaks.ts): later pages keep their cards while newer pages are published. */

const { listingPageSize, listingPageMax } = SERVICE_LIMITS;

/** A listing of `count` places, newest first, named as cursors are (any text: the marks are a hash of it). */
const places = (count: number, prefix: string): string[] =>
  Array.from({ length: count }, (_v, i) => `${prefix}${String(count - i).padStart(5, '0')}`);

/** Each page of a listing as its route pages it: its start (null: the first page) and its places. */
function paged(listing: readonly string[]): { start: string | null; places: string[] }[] {
  const pages: { start: string | null; places: string[] }[] = [];
  for (let at = 0, start: string | null = null; at < listing.length;) {
    const length = pageLength(listing.slice(at, at + listingPageMax + 1), start === null);
    pages.push({ start, places: listing.slice(at, at + length) });
    at += length;
    start = listing[at - 1] ?? null;
  }
  return pages;
}

describe('listing pages', () => {
  const listing = places(3000, 'p');
  const pages = paged(listing);

  it('show every place once, the first page at least listingPageSize, none more than listingPageMax, each ending at a mark but the full ones', () => {
    expect(pages.flatMap((page) => page.places)).toEqual(listing);
    expect(pages[0]?.places.length).toBeGreaterThanOrEqual(listingPageSize);
    for (const [i, page] of pages.entries()) {
      expect(page.places.length).toBeLessThanOrEqual(listingPageMax);
      const last = page.places.at(-1) ?? '';
      if (i < pages.length - 1) expect(isPageBreak(last) || page.places.length === listingPageMax).toBe(true);
    }
    // About one place in twelve ends a page: a few hundred pages.
    expect(pages.length).toBeGreaterThan(150);
  });

  it('keep their starts and places while newer places are published, from the first mark past the first page on', () => {
    const before = new Map(pages.map((page) => [page.start, page.places.join()]));
    for (const added of [1, 5, 19, 64]) {
      const after = paged([...places(added, 'n'), ...listing]);
      const kept = pages.filter((page, i) => i > 0 && page.start !== null && isPageBreak(page.start));
      expect(kept.length).toBeGreaterThan(100);
      const starts = new Map(after.map((page) => [page.start, page.places.join()]));
      for (const page of kept)
        expect([page.start, starts.get(page.start)]).toEqual([page.start, before.get(page.start)]);
    }
  });

  it('each name the page before them from the places newer than their start', () => {
    // Every seventh page (each one reads its listing to the newest).
    for (const [i, page] of pages.entries()) {
      if (page.start === null || i % 7 !== 1) continue;
      const at = listing.indexOf(page.start);
      // Its start and the places newer, nearest first: read to the newest, or NEWER_WALK of them.
      const newer = listing.slice(0, at + 1).reverse();
      expect(newerPageStart(newer, true)).toBe(pages[i - 1]?.start);
      if (newer.length > NEWER_WALK + 1)
        expect(newerPageStart(newer.slice(0, NEWER_WALK + 1), false)).toBe(pages[i - 1]?.start);
    }
  });

  it('name the first page before one when no mark a first page cannot hold is among the places read', () => {
    const unmarked = places(400, 'u').filter((cursor) => !isPageBreak(cursor));
    expect(newerPageStart(unmarked.slice(0, NEWER_WALK), false)).toBeNull();
    expect(newerPageStart([], true)).toBeNull();
  });
});
