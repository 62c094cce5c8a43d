import { Readable } from 'node:stream';
import { Feed } from 'feed';
import { ErrorLevel, SitemapIndexStream, SitemapStream, streamToPromise } from 'sitemap';
import type { ListedPage, Section } from '@cm/contract';
import { escapeHtml } from './blocks';
import { normalizeDomain } from './domains';
import { languageTags } from './language-tags';
import { allowedUrl } from './urls';
import { feedUrl, homeUrl, pageUrl, questionsUrl, sectionUrl, sitemapIndexUrl, sitemapUrl } from './site-urls';

/*
 * The files crawlers and feed readers read of a site (docs/api.md#discovery-files): its sitemap index
 * and sitemaps (sitemaps.org 0.9, written by the `sitemap` package), its feed of the latest pages
 * (Atom, RFC 4287, written by the `feed` package), and, on its own domain, its robots.txt.
 */

/** The months from `first` to `last` (`yyyy-mm`), both included, oldest first. */
export function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  const at = new Date(`${first}-01T00:00:00Z`);
  for (let guard = 0; guard < 12 * 200 && !Number.isNaN(at.getTime()); guard++) {
    const name = at.toISOString().slice(0, 7);
    if (name > last) break;
    months.push(name);
    at.setUTCMonth(at.getUTCMonth() + 1);
  }
  return months;
}

/** The sort-key range of a month's first publishes: [`2026-11`, `2026-12`), as a BETWEEN of text. */
export const monthRange = (month: string): { from: string; to: string } => {
  const [next] = monthsBetween(month, '9999-12').slice(1);
  return { from: month, to: next ?? '9999-13' };
};

/** The shard of a sitemap URL's last segment: `2026-11.xml` → `2026-11`, else null. */
export function sitemapShardOf(segment: string): string | null {
  const m = /^(\d{4}-(?:0[1-9]|1[0-2]))\.xml$/.exec(segment);
  return m?.[1] ?? null;
}

/** The sitemap of the site's listing pages: its home, its index of questions and its sections. */
export const LISTINGS_SHARD = 'listings';

/**
 * Whether a page belongs in the sitemap: search engines may index it (no `noindex`), and it is its own
 * canonical (a `canonical_url` naming another page asks them to index that one instead).
 */
export function inSitemap(root: string, page: ListedPage): boolean {
  if (page.noindex) return false;
  const canonical = allowedUrl(page.canonical_url);
  return page.canonical_url === null || canonical === pageUrl(root, page.type, page.slug);
}

const collect = async (stream: Readable): Promise<string> => (await streamToPromise(stream)).toString();

/** The latest of ISO times, or undefined when there is none. */
const latestOf = (times: readonly (string | undefined)[]): string | undefined =>
  times.reduce<string | undefined>((latest, time) => (time && !(latest && latest >= time) ? time : latest), undefined);

/**
 * The sitemap index: the listings' sitemap, then one sitemap per month that has pages, each with its
 * lastmod when known. The listings' is the newest of the months': its cards' lastmods are among theirs.
 */
export function sitemapIndexXml(root: string, months: readonly { shard: string; lastmod?: string }[]): Promise<string> {
  const newest = latestOf(months.map((month) => month.lastmod));
  const listings = { shard: LISTINGS_SHARD, ...(newest ? { lastmod: newest } : {}) };
  const entries = [listings, ...months].map(({ shard, lastmod }) => ({
    url: sitemapUrl(root, shard),
    ...(lastmod ? { lastmod } : {}),
  }));
  return collect(Readable.from(entries).pipe(new SitemapIndexStream({ level: ErrorLevel.THROW })));
}

/** A sitemap of pages: each URL with when what readers see of it last changed. */
export function sitemapXml(entries: readonly { url: string; lastmod?: string }[]): Promise<string> {
  return collect(Readable.from(entries).pipe(new SitemapStream({ level: ErrorLevel.THROW })));
}

/** The pages of a month's sitemap: the site's pages that belong in it, each with its lastmod. */
export const pageEntries = (root: string, pages: readonly ListedPage[]) =>
  pages
    .filter((page) => inSitemap(root, page))
    .map((page) => ({ url: pageUrl(root, page.type, page.slug), lastmod: page.visible_at }));

/** When what readers see of the newest changed of `pages` changed, or undefined when there is none. */
const newestVisible = (pages: readonly ListedPage[]): string | undefined =>
  latestOf(pages.map((page) => page.visible_at));

/** What the listings' sitemap is made of: the first page of each listing, as its route reads it. */
export interface ListingsRead {
  home: readonly ListedPage[];
  questions: readonly ListedPage[];
  /** Each section the site has had a page in, with its first page's cards (none: its page answers 404). */
  sections: readonly { section: Section; pages: readonly ListedPage[] }[];
}

/**
 * The entries of the listings' sitemap: the home and the index of questions, and each category and topic
 * page that answers 200 with a page search engines may index (not one whose cards are all `noindex`).
 * Each with the newest lastmod of the cards its first page shows, when it shows any.
 */
export function listingEntries(root: string, read: ListingsRead): { url: string; lastmod?: string }[] {
  const entry = (url: string, pages: readonly ListedPage[]) => {
    const lastmod = newestVisible(pages);
    return lastmod === undefined ? { url } : { url, lastmod };
  };
  return [
    entry(homeUrl(root), read.home),
    entry(questionsUrl(root), read.questions),
    ...read.sections
      .filter(({ pages }) => pages.some((page) => !page.noindex))
      .map(({ section, pages }) => entry(sectionUrl(root, section), pages)),
  ];
}

/** A site as its feed names it: ids from what never changes, links at its root URL. */
export interface FeedSite {
  site_id: number;
  name: string;
  /** The site's domain as registered at its creation: the authority of its tag URIs. */
  domain: string;
  /** `<COUNTRY>/<lang>`: the feed's `xml:lang`. */
  locale: string;
  created_at: string;
  root: string;
}

/** A live page in the feed, with its rendered body as HTML when there is one. */
export interface FeedEntry {
  page: ListedPage;
  content: string | null;
}

/**
 * A tag URI (RFC 4151): the ids Atom asks never to change (RFC 4287 §4.2.6), so neither a site starting
 * to serve its own domain nor a renamed page makes readers see an entry twice. The authority is the
 * site's domain as registered (a name that is no hostname: one under `.invalid`, which no one else mints).
 */
function tagUri(site: FeedSite, at: string, specific: string): string {
  const authority = normalizeDomain(site.domain) ?? `site-${site.site_id}.invalid`;
  return `tag:${authority},${at.slice(0, 10)}:site-${site.site_id}${specific}`;
}

/** The site's feed: its latest articles and questions, newest first publish first (Atom). */
export function feedXml(site: FeedSite, entries: readonly FeedEntry[]): string {
  const updated = newestVisible(entries.map(({ page }) => page));
  const feed = new Feed({
    id: tagUri(site, site.created_at, ''),
    link: homeUrl(site.root),
    title: site.name,
    description: `The latest of ${site.name}`,
    copyright: '',
    generator: false,
    // A site without pages yet: its feed began when the site did.
    updated: new Date(updated || site.created_at),
    feedLinks: { atom: feedUrl(site.root) },
    author: { name: site.name, link: homeUrl(site.root) },
  });
  for (const { page, content } of entries) {
    const url = pageUrl(site.root, page.type, page.slug);
    // The package writes an entry's title, summary and content as Atom's `type="html"`: text, then, is
    // escaped HTML; the content is the rendered body, whose every text is escaped already.
    feed.addItem({
      id: tagUri(site, page.created_at, `/${page.id}`),
      link: url,
      title: escapeHtml(page.title),
      date: new Date(page.visible_at),
      published: new Date(page.created_at),
      ...(page.card_text ? { description: escapeHtml(page.card_text) } : {}),
      ...(content ? { content } : {}),
    });
  }
  return withLanguage(feed.atom1(), languageTags(site.locale).lang);
}

/** The feed's root with `xml:lang` (the package writes a language into RSS only). */
function withLanguage(atom: string, language: string): string {
  const root = '<feed xmlns="http://www.w3.org/2005/Atom">';
  return atom.replace(root, `${root.slice(0, -1)} xml:lang="${escapeHtml(language)}">`);
}

/** robots.txt of a site's own domain: every page may be read, and where its sitemap is. */
export const siteRobotsTxt = (root: string): string =>
  ['User-agent: *', 'Allow: /', `Sitemap: ${sitemapIndexUrl(root)}`, ''].join('\n');
