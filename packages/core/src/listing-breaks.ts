import { createHash } from 'node:crypto';
import { SERVICE_LIMITS } from '@cm/contract';

/*
 * Where a listing's pages end (docs/api/visitor-pages.md#listing-pages). A later page is named by the
 * card it starts after (`?before=<cursor>`); for that name to keep showing the same cards while newer
 * pages are published, a page ends at a card marked by its place alone (a hash of its cursor: about one
 * card in LISTING_BREAK_EVERY), not after a count from the newest. Only the first page, whose start moves
 * with every publish, shows at least listingPageSize cards; a run of cards without a mark ends a page at
 * listingPageMax. So each page break past the first page's stays where it is for good (a card taken down
 * moves only the break it was).
 */

/** One card in this many, by its place, ends a listing page. */
const LISTING_BREAK_EVERY = 12;

/** Places read toward the newer to find the page before one: a mark among them is all but certain. */
export const NEWER_WALK = 200;

export const isPageBreak = (cursor: string): boolean =>
  createHash('sha256').update(cursor).digest().readUInt32BE(0) % LISTING_BREAK_EVERY === 0;

/**
 * How many of `cursors` (a run from a page's start, newest first) the page holds: up to and with its first
 * mark, at least listingPageSize on the first page (`first`), at most listingPageMax.
 */
export function pageLength(cursors: readonly string[], first: boolean): number {
  const { listingPageSize, listingPageMax } = SERVICE_LIMITS;
  const end = Math.min(cursors.length, listingPageMax);
  for (let i = first ? listingPageSize - 1 : 0; i < end; i++) if (isPageBreak(cursors[i] ?? '')) return i + 1;
  return end;
}

/**
 * The cursor of the page before the one starting after `newer[0]`: of the page holding that place.
 * `newer`: that place, then those newer than it, nearest first. Null for the listing's first page. When `newer` reaches the newest
 * (`end`), the pages are counted from the first; else from the nearest mark a first page cannot hold (one
 * at least listingPageSize places from the newest always ends a page). With no such mark in NEWER_WALK
 * places (about one chance in 10^4), the first page.
 */
export function newerPageStart(newer: readonly string[], end: boolean): string | null {
  const from = end
    ? newer.length
    : newer.findIndex((cursor, i) => i > 0 && i < newer.length - SERVICE_LIMITS.listingPageSize && isPageBreak(cursor));
  if (from < 0) return null;
  // The places after the start, newest first.
  const run = newer.slice(0, from).reverse();
  let start = end ? null : (newer[from] ?? null);
  let first = end;
  for (let at = 0; ; first = false) {
    const length = pageLength(run.slice(at), first);
    if (at + length >= run.length) return start;
    at += length;
    start = run[at - 1] ?? null;
  }
}
