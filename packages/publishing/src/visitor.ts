import { ApiError, type PageType } from '@cm/contract';
import {
  pageBlocks,
  pageId,
  pageTypeOfId,
  readerRecord,
  relatedShown,
  renderedLinkTargets,
  renderPage,
  renderUnavailable,
  UNAVAILABLE,
  visitorUrl,
} from '@cm/core';
import type { LinkTarget, Site, Store, StoredPage } from '@cm/store';

/**
 * The sites this container read, kept SITE_CACHE_MS: a site's name heads each of its pages, and a warm
 * visitor page then costs the page's one read. A renamed site shows within SITE_CACHE_MS, as a cached
 * page would (max-age). At most SITE_CACHE_MAX entries; the oldest goes first.
 */
const SITE_CACHE_MS = 60_000;
const SITE_CACHE_MAX = 1_000;
const sitesRead = new Map<number, { site: Site | null; readAt: number }>();

async function siteOf(sites: Store['sites'], siteId: number): Promise<Site | null> {
  const kept = sitesRead.get(siteId);
  const now = Date.now();
  if (kept && now - kept.readAt < SITE_CACHE_MS && now >= kept.readAt) return kept.site;
  const site = await sites.get(siteId);
  sitesRead.delete(siteId);
  sitesRead.set(siteId, { site, readAt: now });
  if (sitesRead.size > SITE_CACHE_MAX) sitesRead.delete(sitesRead.keys().next().value ?? siteId);
  return site;
}

/**
 * A visitor page: 200 with the rendered page and when what it shows last changed, or 404 (no such page,
 * or a draft) and 410 (deleted) with their own HTML, and the same in the API's error shape for a client
 * that asks for JSON.
 */
export type VisitorPage =
  { status: 200; html: string; modifiedAt: Date } | { status: 404 | 410; html: string; error: ApiError };

/** The 404 or 410 page. */
export function unavailablePage(status: 404 | 410): VisitorPage {
  const { code, message } = UNAVAILABLE[status];
  return { status, html: renderUnavailable(status), error: new ApiError(code, message) };
}

/**
 * The page readers see at `/sites/{site_id}/{type}s/{slug}`: live pages only. Links to other pages, and
 * the related pages' cards, render only while their target is live (relink), so the targets' states and
 * titles are read in one batch.
 */
export async function visitorPage(
  store: Store,
  baseUrl: string,
  siteId: number,
  type: PageType,
  slug: string,
): Promise<VisitorPage> {
  const { pages, sites } = store;
  // The site heads every page: read beside the page, in the same round trip.
  const [page, site] = await Promise.all([pages.get(siteId, type, pageId(siteId, type, slug)), siteOf(sites, siteId)]);
  if (!page || !site) return unavailablePage(404);
  if (page.deleted) return unavailablePage(410);
  if (page.status !== 'published') return unavailablePage(404);

  const record = readerRecord(page);
  const blocks = [...pageBlocks(page.doc), ...page.community_answers.flatMap((a) => a.blocks)];
  // Links in the blocks and the related pages' cards, in one batch read.
  const related = relatedShown(record);
  const ids = new Set([...renderedLinkTargets(blocks), ...related.articles, ...related.questions]);
  const linked = [...ids].flatMap((id) => {
    const linkedType = pageTypeOfId(id);
    return linkedType ? [{ id, type: linkedType }] : [];
  });
  const targets = linked.length > 0 ? await pages.linkTargets(siteId, linked) : new Map<string, LinkTarget>();
  const html = renderPage(record, {
    pageUrl: visitorUrl(baseUrl, siteId, type, slug),
    site: { id: siteId, name: site.name, baseUrl },
    linkTarget: (id) => {
      const target = targets.get(id);
      return target?.live ? { url: visitorUrl(baseUrl, siteId, target.type, target.slug), title: target.title } : null;
    },
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
