import { Readable } from 'node:stream';
import { Feed } from 'feed';
import { ErrorLevel, SitemapIndexStream, SitemapStream, streamToPromise } from 'sitemap';
import type { ListedPage } from '@cm/contract';
import { escapeHtml } from './blocks';
import { allowedUrl } from './urls';
import { feedUrl, homeUrl, pageUrl, sitemapIndexUrl, sitemapUrl } from './site-urls';

/*
 * The files crawlers and feed readers read of a site (docs/api.md#discovery-files): its sitemap index
 * and sitemaps (sitemaps.org 0.9, written by the `sitemap` package), its feed of the latest articles
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

/** The sitemap index: the listings' sitemap, then one sitemap per month that has pages. */
export function sitemapIndexXml(root: string, months: readonly string[]): Promise<string> {
  const entries = [LISTINGS_SHARD, ...months].map((shard) => ({ url: sitemapUrl(root, shard) }));
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

/** The site's feed: its latest articles, newest first (Atom). */
export function feedXml(site: { name: string; root: string }, articles: readonly ListedPage[]): string {
  const updated = articles.reduce((latest, a) => (a.visible_at > latest ? a.visible_at : latest), '');
  const feed = new Feed({
    id: homeUrl(site.root),
    link: homeUrl(site.root),
    title: site.name,
    description: `The latest articles of ${site.name}`,
    language: 'en',
    copyright: '',
    generator: false,
    updated: updated ? new Date(updated) : new Date(0),
    feedLinks: { atom: feedUrl(site.root) },
    author: { name: site.name, link: homeUrl(site.root) },
  });
  for (const article of articles) {
    const url = pageUrl(site.root, article.type, article.slug);
    // The package writes an entry's title and summary as Atom's `type="html"`: text, then, is escaped HTML.
    feed.addItem({
      id: url,
      link: url,
      title: escapeHtml(article.title),
      date: new Date(article.visible_at),
      published: new Date(article.created_at),
      ...(article.card_text ? { description: escapeHtml(article.card_text) } : {}),
    });
  }
  return feed.atom1();
}

/** robots.txt of a site's own domain: every page may be read, and where its sitemap is. */
export const siteRobotsTxt = (root: string): string =>
  ['User-agent: *', 'Allow: /', `Sitemap: ${sitemapIndexUrl(root)}`, ''].join('\n');
