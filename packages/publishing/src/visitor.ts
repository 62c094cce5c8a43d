import { ApiError, type PageType } from '@cm/contract';
import {
  pageBlocks,
  pageId,
  pageUrl,
  readerRecord,
  relatedShown,
  renderedLinkTargets,
  renderPage,
  renderUnavailable,
  UNAVAILABLE,
} from '@cm/core';
import type { LinkTarget, Store, StoredPage } from '@cm/store';
import { liveLinkTarget, readLinkTargets } from './link-targets';
import { movedPage, type MovedPage } from './moved';
import { servedSite, type ServedSite, type SiteRef } from './served-sites';
import { pageOfSlug } from './slugs';

/**
 * A visitor page: 200 with the rendered page and when what it shows last changed, or 404 (no such page,
 * or a draft) and 410 (deleted) with their own HTML, and the same in the API's error shape for a client
 * that asks for JSON.
 */
export type VisitorPage = { status: 200; html: string; modifiedAt: Date | null } | MovedPage | UnavailablePage;
export interface UnavailablePage {
  status: 404 | 410;
  html: string;
  error: ApiError;
}

/** The 404 or 410 page, of the site it is on (its header and footer) or of none. */
export function unavailablePage(status: 404 | 410, served: ServedSite | null): UnavailablePage {
  const { code, message } = UNAVAILABLE[status];
  return { status, html: renderUnavailable(status, served?.shown ?? null), error: new ApiError(code, message) };
}

/** The 404 page of the site a path names, when it names one a reader can reach. */
export async function notFoundPage(store: Store, pagesBaseUrl: string, ref: SiteRef | null): Promise<UnavailablePage> {
  return unavailablePage(404, ref && (await servedSite(store.sites, pagesBaseUrl, ref)));
}

/**
 * The page readers see at `<site>/{type}s/{slug}`: live pages only. Links to other pages, and the related
 * pages' cards, render only while their target is live (relink), so the targets' states and titles are
 * read in one batch. The page is read strongly consistent: right after a publish it is there, and right
 * after a take-down it is gone, so what a cache keeps is never older than it says.
 */
export async function visitorPage(
  store: Store,
  pagesBaseUrl: string,
  ref: SiteRef,
  type: PageType,
  slug: string,
  /** The path had a slash at the end: the page is not there, it answers a redirect to itself. */
  trailingSlash = false,
): Promise<VisitorPage> {
  const { pages, pageListings, sites } = store;
  const read = (siteId: number) => pages.get(siteId, type, pageId(siteId, type, slug));
  // A site named by id is read beside the page, in the same round trip; one named by its domain, first.
  const [served, named] = await Promise.all([
    servedSite(sites, pagesBaseUrl, ref),
    'siteId' in ref ? read(ref.siteId) : null,
  ]);
  if (!served) return unavailablePage(404, null);
  const { site, root, shown } = served;
  const found = await pageOfSlug(store, site.site_id, type, slug, 'siteId' in ref ? named : await read(site.site_id));
  if (!found) return unavailablePage(404, served);
  const { page } = found;
  if (page.deleted) return unavailablePage(410, served);
  if (page.status !== 'published') return unavailablePage(404, served);
  // An old slug, or the page's path with a slash at the end: one hop to where the page is now.
  if (found.moved || trailingSlash) return movedPage(pageUrl(root, type, page.doc.slug));

  const record = readerRecord(page);
  // Links in the blocks and the related pages' cards, in one batch read. The document's and the answers'
  // apart: a kept document's targets are worked out once.
  const related = relatedShown(record);
  const targets = await readLinkTargets(pageListings, site.site_id, [
    ...renderedLinkTargets(pageBlocks(page.doc)),
    ...renderedLinkTargets(page.community_answers.flatMap((a) => a.blocks)),
    ...related.articles,
    ...related.questions,
  ]);
  const html = renderPage(record, {
    pageUrl: pageUrl(root, type, slug),
    site: shown,
    linkTarget: liveLinkTarget(root, targets),
  });
  return { status: 200, html, modifiedAt: modifiedAt(page, [...targets.values()]) };
}

/**
 * The newest of the times the service recorded of what the page shows: its publish or notify, relink,
 * summary, community answers, and the publish or notify of each page it links to (whose live state shows
 * a link or not). Never the editor's `updated_at`, which may be any date; never later than now.
 */
function modifiedAt(page: StoredPage, targets: readonly LinkTarget[]): Date {
  const times = [
    page.notified_at,
    page.relinked_at,
    page.summary_at,
    page.created_at,
    ...page.community_answers.map((a) => a.created_at),
    ...targets.map((t) => t.notified_at),
  ];
  const newest = Math.max(...times.flatMap((time) => (time ? [Date.parse(time)] : [])).filter(Number.isFinite));
  return new Date(Math.min(newest, Date.now()));
}
