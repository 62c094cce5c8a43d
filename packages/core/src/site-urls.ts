import type { PageType, Section } from '@cm/contract';

/*
 * Where a site's pages are, built here only. A site whose domain is registered to be served by this
 * deployment has its pages at `https://<domain>/…`; any other has them under the deployment's own
 * address, at `<base>/sites/<id>/…`. Every URL a page, a listing, a sitemap or a feed names comes from
 * the site's root, never from the Host a request came with (docs/api.md#the-sites-own-domain).
 */

/** The address a site's pages are served at: its root URL, with no slash at the end. */
export const siteRoot = (baseUrl: string, site: { site_id: number; served_domain?: string | null }): string =>
  site.served_domain ? `https://${site.served_domain}` : `${baseUrl}/sites/${site.site_id}`;

/**
 * The pages' icon, at the root of the host that serves them: the site's own domain, or the deployment's
 * address (both answer `/favicon.ico`, as browsers ask every host for it).
 */
export const siteIconUrl = (baseUrl: string, site: { served_domain?: string | null }): string =>
  site.served_domain ? `https://${site.served_domain}/favicon.ico` : `${baseUrl}/favicon.ico`;

/** The site's home page. */
export const homeUrl = (root: string): string => `${root}/`;

/** A page of the site. */
export const pageUrl = (root: string, type: PageType, slug: string): string =>
  `${root}/${type}s/${encodeURIComponent(slug)}`;

/** A category's or topic's name as one URL segment: its letters and digits, lower case, runs of anything else as one `-`. */
export const sectionSlug = (name: string): string =>
  name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');

const SECTION_PATHS: Record<Section['kind'], string> = { category: 'categories', topic: 'topics' };

/** A category's or topic's page. */
export const sectionUrl = (root: string, section: Section): string =>
  `${root}/${SECTION_PATHS[section.kind]}/${encodeURIComponent(section.slug)}`;

/** The index of the site's questions. */
export const questionsUrl = (root: string): string => `${root}/questions`;

/** The sitemap index, and one of the sitemaps it lists (`shard`: a month, `2026-11`, or a day, `2026-11-03`). */
export const sitemapIndexUrl = (root: string): string => `${root}/sitemap.xml`;
export const sitemapUrl = (root: string, shard: string): string => `${root}/sitemaps/${shard}.xml`;

/**
 * How the edge passes a request at a site's own domain on to the API: `https://<host><path>` becomes
 * `/domains/<host><path>`, the host in lower case without a port or a final dot. The CloudFront function
 * (infra/constructs/site-edge.ts) and the local server both do this; a test keeps them to the same answers.
 */
export function domainPath(host: string, path: string): string {
  const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  return `/domains/${name}${path === '/' ? '' : path}`;
}

/** The site's feed of its latest articles (Atom). */
export const feedUrl = (root: string): string => `${root}/feed.xml`;
