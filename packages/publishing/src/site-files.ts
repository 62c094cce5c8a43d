import { SERVICE_LIMITS, type PageType } from '@cm/contract';
import {
  feedXml,
  homeUrl,
  LISTINGS_SHARD,
  monthRange,
  monthsBetween,
  pageEntries,
  questionsUrl,
  sectionUrl,
  siteRobotsTxt,
  sitemapIndexXml,
  sitemapXml,
} from '@cm/core';
import { mapLimit, type Store } from '@cm/store';
import { servedSite, type SiteRef } from './served-sites';

/*
 * A site's discovery files (docs/api.md#discovery-files), each from the index of live pages, never a
 * scan: the sitemap index reads one item per month of the site's life and type, a month's sitemap that
 * month's pages (up to sitemapUrlsMax), the feed one page of the latest articles.
 */

const PAGE_TYPES: readonly PageType[] = ['article', 'question'];
/** Month probes one sitemap index has in flight at most. */
const PROBES_IN_FLIGHT = 8;

/** The sitemap index: the listings' sitemap, and each month since the site began that has a live page. */
export async function siteSitemapIndex(store: Store, pagesBaseUrl: string, ref: SiteRef, now = new Date()) {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return null;
  const { site, root } = served;
  const months = monthsBetween(site.created_at.slice(0, 7), now.toISOString().slice(0, 7));
  const withPages = await mapLimit(months, PROBES_IN_FLIGHT, async (month) => {
    for (const type of PAGE_TYPES)
      if (await store.pageListings.hasLivePagesBetween(site.site_id, type, monthRange(month))) return true;
    return false;
  });
  return sitemapIndexXml(
    root,
    months.filter((_month, i) => withPages[i]),
  );
}

/**
 * One sitemap: the listing pages (home, the index of questions, every section the site has had a page
 * in), or a month's live pages that belong in a sitemap, each with its lastmod. Null when there is no
 * such site, or the month has no such page (left, or never had one): a urlset holds at least one URL,
 * so there is no such sitemap. A month past sitemapUrlsMax lists the first that many
 * (docs/api.md#discovery-files).
 */
export async function siteSitemap(store: Store, pagesBaseUrl: string, ref: SiteRef, shard: string) {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return null;
  const { site, root } = served;
  const max = SERVICE_LIMITS.sitemapUrlsMax;
  if (shard === LISTINGS_SHARD) {
    const sections = await store.sections.registered(site.site_id, max - 2);
    return sitemapXml([
      { url: homeUrl(root) },
      { url: questionsUrl(root) },
      ...sections.map((section) => ({ url: sectionUrl(root, section) })),
    ]);
  }
  const pages = [];
  for (const type of PAGE_TYPES) {
    const read = await store.pageListings.livePagesBetween(site.site_id, type, monthRange(shard), max - pages.length);
    pages.push(...read.pages);
  }
  const entries = pageEntries(root, pages);
  return entries.length > 0 ? sitemapXml(entries) : null;
}

/** The site's feed of its latest articles (Atom). */
export async function siteFeed(store: Store, pagesBaseUrl: string, ref: SiteRef) {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return null;
  const { site, root } = served;
  const latest = await store.pageListings.livePages(site.site_id, ['article'], { limit: SERVICE_LIMITS.feedEntries });
  return feedXml({ name: site.name, root }, latest.pages);
}

/** robots.txt of a site's own domain, or null when no site serves it. */
export async function siteRobots(store: Store, pagesBaseUrl: string, host: string) {
  const served = await servedSite(store.sites, pagesBaseUrl, { host });
  return served ? siteRobotsTxt(served.root) : null;
}
