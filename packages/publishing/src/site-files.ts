import { isLive, SERVICE_LIMITS, type ListedPage, type PageRecord, type PageType } from '@cm/contract';
import {
  feedContent,
  feedXml,
  pageBlocks,
  pageUrl,
  readerRecord,
  renderedLinkTargets,
  LISTINGS_SHARD,
  listingEntries,
  monthRange,
  monthsBetween,
  pageEntries,
  siteRobotsTxt,
  sitemapIndexXml,
  sitemapXml,
  type ListingsRead,
} from '@cm/core';
import { mapLimit, type Store } from '@cm/store';
import { liveLinkTarget, readLinkTargets } from './link-targets';
import { readListing } from './listings';
import { servedSite, type SiteRef } from './served-sites';

/*
 * A site's discovery files (docs/api.md#discovery-files), each from the indexes of live pages, never a
 * scan: the sitemap index reads one item per month of the site's life (and per type, for a month the
 * index by month has nothing of), a month's sitemap that month's pages (up to sitemapUrlsMax), the
 * listings' sitemap each listing's first page, the feed one page of the latest articles and questions.
 */

const PAGE_TYPES: readonly PageType[] = ['article', 'question'];
/** Month probes one sitemap index has in flight at most. */
const PROBES_IN_FLIGHT = 8;

/**
 * The sitemap index: the listings' sitemap, and each month since the site began that has a live page,
 * each with its lastmod when known: a month's from the index of live pages by month (one item), else
 * (pages from before months were kept) the index of live pages tells whether it has one, without a date.
 */
export async function siteSitemapIndex(store: Store, pagesBaseUrl: string, ref: SiteRef, now = new Date()) {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return null;
  const { site, root } = served;
  const months = monthsBetween(site.created_at.slice(0, 7), now.toISOString().slice(0, 7));
  const probed = await mapLimit(months, PROBES_IN_FLIGHT, async (month) => {
    const lastmod = await store.pageListings.monthChangedAt(site.site_id, month);
    if (lastmod !== null) return [{ shard: month, lastmod }];
    for (const type of PAGE_TYPES)
      if (await store.pageListings.hasLivePagesBetween(site.site_id, type, monthRange(month)))
        return [{ shard: month }];
    return [];
  });
  return sitemapIndexXml(root, probed.flat());
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
  if (shard === LISTINGS_SHARD) return sitemapXml(listingEntries(root, await listingsRead(store, site.site_id)));
  const pages = [];
  for (const type of PAGE_TYPES) {
    const read = await store.pageListings.livePagesBetween(site.site_id, type, monthRange(shard), max - pages.length);
    pages.push(...read.pages);
  }
  const entries = pageEntries(root, pages);
  return entries.length > 0 ? sitemapXml(entries) : null;
}

/**
 * The first page of each listing, as its route reads it (readListing): the home's and the index of
 * questions', and each registered section's (PROBES_IN_FLIGHT at a time), so the sitemap names only the
 * section pages that answer 200.
 */
async function listingsRead(store: Store, siteId: number): Promise<ListingsRead> {
  const [registered, home, questions] = await Promise.all([
    store.sections.registered(siteId, SERVICE_LIMITS.sitemapUrlsMax - 2),
    readListing(store, siteId, { kind: 'home' }, undefined),
    readListing(store, siteId, { kind: 'questions' }, undefined),
  ]);
  const sections = await mapLimit(registered, PROBES_IN_FLIGHT, async (section) => ({
    section,
    pages: (await readListing(store, siteId, section, undefined)).pages,
  }));
  return { home: home.pages, questions: questions.pages, sections };
}

/** Pages a feed reads at once: this many of the largest (5 MiB) stay well within a function's memory. */
const FEED_READS_IN_FLIGHT = 10;

/**
 * The feed's pages as readers see them, newest first, read FEED_READS_IN_FLIGHT at a time until their
 * bodies pass feedContentBytes (the rest are not read). Null for one taken down since the index of live
 * pages (eventually consistent) was read.
 */
async function feedRecords(store: Store, siteId: number, pages: readonly ListedPage[]) {
  const records: (PageRecord | null)[] = [];
  let bytes = 0;
  for (let i = 0; i < pages.length && bytes <= SERVICE_LIMITS.feedContentBytes; i += FEED_READS_IN_FLIGHT) {
    const read = pages.slice(i, i + FEED_READS_IN_FLIGHT).map((page) => store.pages.get(siteId, page.type, page.id));
    for (const page of await Promise.all(read)) {
      const record = page && isLive(page.status, page.deleted) ? readerRecord(page) : null;
      records.push(record);
      bytes += record ? JSON.stringify(pageBlocks(record)).length : 0;
    }
  }
  return records;
}

/**
 * The site's feed (Atom): its latest live articles and questions, each with its rendered body while the
 * feed's bodies stay within feedContentBytes (later entries carry their summary only). One Query per type
 * for the latest, their pages read in parallel, then the pages those link to in one batch.
 */
export async function siteFeed(store: Store, pagesBaseUrl: string, ref: SiteRef) {
  const served = await servedSite(store.sites, pagesBaseUrl, ref);
  if (!served) return null;
  const { site, root } = served;
  const latest = await store.pageListings.livePages(site.site_id, PAGE_TYPES, { limit: SERVICE_LIMITS.feedEntries });
  const records = await feedRecords(store, site.site_id, latest.pages);
  const targets = await readLinkTargets(
    store.pageListings,
    site.site_id,
    records.flatMap((record) => (record ? renderedLinkTargets(pageBlocks(record)) : [])),
  );
  const linkTarget = liveLinkTarget(root, targets);
  let bytes = 0;
  const entries = latest.pages.map((page, i) => {
    const record = records[i];
    // Once the bodies pass feedContentBytes, no later entry carries one: none is rendered.
    const content =
      record && bytes <= SERVICE_LIMITS.feedContentBytes
        ? feedContent(record, { pageUrl: pageUrl(root, page.type, page.slug), site: served.shown, linkTarget })
        : null;
    bytes += content ? Buffer.byteLength(content) : 0;
    return { page, content: bytes <= SERVICE_LIMITS.feedContentBytes ? content : null };
  });
  return feedXml({ ...site, root }, entries);
}

/** robots.txt of a site's own domain, or null when no site serves it. */
export async function siteRobots(store: Store, pagesBaseUrl: string, host: string) {
  const served = await servedSite(store.sites, pagesBaseUrl, { host });
  return served ? siteRobotsTxt(served.root) : null;
}
