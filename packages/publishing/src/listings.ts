import { SERVICE_LIMITS, type ListedPage, type PageType, type Section } from '@cm/contract';
import { homeUrl, NEWER_WALK, newerPageStart, pageLength, questionsUrl, renderListing, sectionUrl } from '@cm/core';
import type { ListingRun, RunToward, Store } from '@cm/store';
import { InvalidCursor } from '@cm/store/errors';
import { movedPage } from './moved';
import { servedSite, type SiteRef } from './served-sites';
import { unavailablePage, type VisitorPage } from './visitor';

/** A listing page of a site: its home, its index of questions, or a category's or topic's page. */
export type ListingView = { kind: 'home' | 'questions' } | Section;

/** The query parameter a listing's older page is at: where it starts. */
export const LISTING_CURSOR = 'before';

const withCursor = (url: string, cursor: string | null): string | null =>
  cursor === null ? null : `${url}?${LISTING_CURSOR}=${encodeURIComponent(cursor)}`;

/** A page of a listing as its route shows it: its cards, and the cursors of the pages beside it. */
export interface ListingRead {
  /** The section's name, as the newest page listed sent it (null: a home or an index, or nothing listed). */
  name: string | null;
  pages: ListedPage[];
  /** Where the older page starts, or null at the listing's end. */
  next: string | null;
  /** Where the newer page starts (null: the first page); undefined on the first page itself. */
  newer?: string | null;
}

/**
 * The places of a listing's page from `cursor` (the first page without one) and the cursors of the pages
 * beside it: the places older (up to listingPageMax and one more: is there an older page?) and, for a
 * later page, its start and the NEWER_WALK places newer, read in parallel.
 */
async function placed<T>(
  read: (options: { limit: number; cursor?: string; toward: RunToward }) => Promise<ListingRun<T>>,
  cursor: string | undefined,
): Promise<{ shown: T[]; next: string | null; newer?: string | null }> {
  const [older, newer] = await Promise.all([
    read({ limit: SERVICE_LIMITS.listingPageMax + 1, toward: 'older', ...(cursor === undefined ? {} : { cursor }) }),
    cursor === undefined ? null : read({ limit: NEWER_WALK, toward: 'newer', cursor }),
  ]);
  const length = pageLength(
    older.items.map((item) => item.cursor),
    cursor === undefined,
  );
  const shown = older.items.slice(0, length);
  const before = newer && cursor !== undefined ? [cursor, ...newer.items.map((item) => item.cursor)] : null;
  return {
    shown: shown.map(({ item }) => item),
    next: older.items.length > length ? (shown.at(-1)?.cursor ?? null) : null,
    ...(before && newer ? { newer: newerPageStart(before, newer.end) } : {}),
  };
}

/**
 * A page of a listing from where `cursor` says (the first page without one), ending where
 * core/listing-breaks.ts says, so a later page keeps its URL while newer pages are published. The home
 * and the index of questions read the index of live pages (one Query per type), a section its items
 * (one Query) and their pages (one batch read); a later page also reads the places before it (one
 * Query per type), in parallel, to name the newer page. An InvalidCursor when the cursor is not this service's.
 */
export async function readListing(
  store: Store,
  siteId: number,
  view: ListingView,
  cursor: string | undefined,
): Promise<ListingRead> {
  const section = 'slug' in view ? view : null;
  const types: readonly PageType[] = view.kind === 'home' ? ['article', 'question'] : ['question'];
  if (section) {
    const { shown, ...around } = await placed((options) => store.sections.memberRun(siteId, section, options), cursor);
    return { ...(await store.sections.cards(siteId, section, shown)), ...around };
  }
  const { shown, ...around } = await placed((options) => store.pageListings.liveRun(siteId, types, options), cursor);
  return { name: null, pages: shown, ...around };
}

/**
 * A listing page (docs/api.md#listing-pages). A section that lists no live page is not there (404); so
 * is a cursor this service did not make.
 */
export async function listingPage(
  store: Store,
  pagesBaseUrl: string,
  ref: SiteRef,
  view: ListingView,
  cursor: string | undefined,
  /** The path had a slash at the end: the listing answers a redirect to itself. */
  trailingSlash = false,
): Promise<VisitorPage> {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return unavailablePage(404, null);
  const { site, root, shown } = served;
  const section = 'slug' in view ? view : null;
  let read: ListingRead;
  try {
    read = await readListing(store, site.site_id, view, cursor);
  } catch (error) {
    if (error instanceof InvalidCursor) return unavailablePage(404, served);
    throw error;
  }
  if (section && read.name === null && cursor === undefined) return unavailablePage(404, served);
  const first = section ? sectionUrl(root, section) : view.kind === 'home' ? homeUrl(root) : questionsUrl(root);
  const url = cursor === undefined ? first : (withCursor(first, cursor) ?? first);
  if (trailingSlash) return movedPage(url);
  const html = renderListing(
    {
      kind: view.kind,
      name: read.name ?? section?.slug ?? null,
      pages: read.pages,
      url,
      next: withCursor(first, read.next),
      first: cursor === undefined ? null : first,
      newer: read.newer === undefined ? null : (withCursor(first, read.newer) ?? first),
    },
    { site: shown },
  );
  return { status: 200, html, modifiedAt: null };
}
