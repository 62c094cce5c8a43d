import { SERVICE_LIMITS, type ListedPage, type Section } from '@cm/contract';
import { homeUrl, questionsUrl, renderListing, sectionUrl } from '@cm/core';
import type { Store } from '@cm/store';
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

interface Read {
  name: string | null;
  pages: ListedPage[];
  next: string | null;
}

/**
 * A listing page (docs/api.md#listing-pages), a page of `listingPageSize` cards from where `cursor` says
 * (the first page without one). The home and the index of questions read the index of live pages (one
 * Query per type); a section reads its items and their pages (one Query, one batch read). A section that
 * lists no live page is not there (404); so is a cursor this service did not make.
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
  const siteId = site.site_id;
  const options = { limit: SERVICE_LIMITS.listingPageSize, ...(cursor === undefined ? {} : { cursor }) };
  const section = 'slug' in view ? view : null;
  let read: Read;
  try {
    read = section
      ? await store.sections.listing(siteId, section, options)
      : {
          name: null,
          ...(await store.pageListings.livePages(
            siteId,
            view.kind === 'home' ? ['article', 'question'] : ['question'],
            options,
          )),
        };
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
    },
    { site: shown },
  );
  return { status: 200, html, modifiedAt: null };
}
