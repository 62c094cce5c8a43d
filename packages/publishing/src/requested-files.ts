import { ApiError, SitemapParams, SiteRootParams } from '@cm/contract';
import { LISTINGS_SHARD, sitemapShardOf } from '@cm/core';
import type { Store } from '@cm/store';
import type { SiteRef } from './served-sites';
import { siteFeed, siteRobots, siteSitemap, siteSitemapIndex } from './site-files';
import { notFoundPage, type UnavailablePage } from './visitor';

/*
 * A site's discovery files as its routes name them (docs/api.md#discovery-files): the site by id or by
 * its own domain, a sitemap by its segment. When there is no such site or file: at a site's own domain,
 * where every path is the site's, its 404 page, as any unknown path there; by id, on the API's address,
 * `404 not_found`.
 */

/** A site's file: its text and media type. */
export interface SiteFile {
  body: string;
  contentType: string;
}

/** One of a site's files, or the 404 page at a domain, from the path parameters of the request for it (not yet decoded). */
export type SiteFileRead = (store: Store, pagesBaseUrl: string, path: unknown) => Promise<SiteFile | UnavailablePage>;

const XML = 'application/xml; charset=utf-8';
const notFound = () => new ApiError('not_found', 'No site serves this address, or it has no such file');

/** The site a request's path names: by id or by its own domain. */
function siteRefOf(path: unknown): SiteRef {
  const params = SiteRootParams.safeParse(path);
  const { site_id: siteId, host } = params.success ? params.data : {};
  if (siteId !== undefined) return { siteId };
  if (host !== undefined) return { host };
  throw notFound();
}

/** The file, or what a missing one answers where `ref` asked for it. */
async function found(
  store: Store,
  pagesBaseUrl: string,
  ref: SiteRef,
  body: string | null,
  contentType: string,
): Promise<SiteFile | UnavailablePage> {
  if (body !== null) return { body, contentType };
  if ('host' in ref) return notFoundPage(store, pagesBaseUrl, ref);
  throw notFound();
}

export const sitemapIndexFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const ref = siteRefOf(path);
  return found(store, pagesBaseUrl, ref, await siteSitemapIndex(store, pagesBaseUrl, ref), XML);
};

export const sitemapFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const ref = siteRefOf(path);
  const params = SitemapParams.safeParse(path);
  const segment = params.success ? params.data.sitemap : '';
  const shard = segment === `${LISTINGS_SHARD}.xml` ? LISTINGS_SHARD : sitemapShardOf(segment);
  const sitemap = shard === null ? null : await siteSitemap(store, pagesBaseUrl, ref, shard);
  return found(store, pagesBaseUrl, ref, sitemap, XML);
};

export const feedFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const ref = siteRefOf(path);
  const feed = await siteFeed(store, pagesBaseUrl, ref);
  return found(store, pagesBaseUrl, ref, feed, 'application/atom+xml; charset=utf-8');
};

/** robots.txt, at a site's own domain only. */
export const robotsFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const ref = siteRefOf(path);
  const robots = 'host' in ref ? await siteRobots(store, pagesBaseUrl, ref.host) : null;
  return found(store, pagesBaseUrl, ref, robots, 'text/plain; charset=utf-8');
};
