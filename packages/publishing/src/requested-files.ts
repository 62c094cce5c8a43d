import { ApiError, SitemapParams, SiteRootParams } from '@cm/contract';
import { LISTINGS_SHARD, sitemapShardOf } from '@cm/core';
import type { Store } from '@cm/store';
import type { SiteRef } from './served-sites';
import { siteFeed, siteRobots, siteSitemap, siteSitemapIndex } from './site-files';

/*
 * A site's discovery files as its routes name them (docs/api.md#discovery-files): the site by id or by
 * its own domain, a sitemap by its segment; `404 not_found` when there is no such site or file.
 */

/** A site's file: its text and media type. */
export interface SiteFile {
  body: string;
  contentType: string;
}

/** One of a site's files, from the path parameters of the request for it (not yet decoded). */
export type SiteFileRead = (store: Store, pagesBaseUrl: string, path: unknown) => Promise<SiteFile>;

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

function found(body: string | null, contentType: string): SiteFile {
  if (body === null) throw notFound();
  return { body, contentType };
}

export const sitemapIndexFile: SiteFileRead = async (store, pagesBaseUrl, path) =>
  found(await siteSitemapIndex(store, pagesBaseUrl, siteRefOf(path)), XML);

export const sitemapFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const params = SitemapParams.safeParse(path);
  const segment = params.success ? params.data.sitemap : '';
  const shard = segment === `${LISTINGS_SHARD}.xml` ? LISTINGS_SHARD : sitemapShardOf(segment);
  if (shard === null) throw notFound();
  return found(await siteSitemap(store, pagesBaseUrl, siteRefOf(path), shard), XML);
};

export const feedFile: SiteFileRead = async (store, pagesBaseUrl, path) =>
  found(await siteFeed(store, pagesBaseUrl, siteRefOf(path)), 'application/atom+xml; charset=utf-8');

/** robots.txt, at a site's own domain only. */
export const robotsFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const ref = siteRefOf(path);
  const robots = 'host' in ref ? await siteRobots(store, pagesBaseUrl, ref.host) : null;
  return found(robots, 'text/plain; charset=utf-8');
};
