import { ApiError, SitemapParams, SiteRootParams } from '@cm/contract';
import { LISTINGS_SHARD, sitemapShardOf } from '@cm/core';
import { siteFeed, siteRobots, siteSitemap, siteSitemapIndex, type SiteRef } from '@cm/publishing';
import { cacheableFile, getStore, iconReply, publicApi, type ApiRequest } from '@cm/runtime';

const XML = 'application/xml; charset=utf-8';
const notFound = () => new ApiError('not_found', 'No site serves this address, or it has no such file');

/** The site a request names: by id or by its own domain. */
function siteRefOf(request: ApiRequest): SiteRef {
  const params = SiteRootParams.safeParse(request.event.pathParameters ?? {});
  const { site_id: siteId, host } = params.success ? params.data : {};
  if (siteId !== undefined) return { siteId };
  if (host !== undefined) return { host };
  throw notFound();
}

/** A file of the site, or 404 when there is no such site. */
const file = (request: ApiRequest, body: string | null, contentType: string) => {
  if (body === null) throw notFound();
  return cacheableFile(request.event, body, contentType);
};

const sitemapIndex = async (request: ApiRequest) =>
  file(request, await siteSitemapIndex(getStore(), request.pagesBaseUrl, siteRefOf(request)), XML);

const sitemap = async (request: ApiRequest) => {
  const params = SitemapParams.safeParse(request.event.pathParameters ?? {});
  const segment = params.success ? params.data.sitemap : '';
  const shard = segment === `${LISTINGS_SHARD}.xml` ? LISTINGS_SHARD : sitemapShardOf(segment);
  if (shard === null) throw notFound();
  return file(request, await siteSitemap(getStore(), request.pagesBaseUrl, siteRefOf(request), shard), XML);
};

const feed = async (request: ApiRequest) =>
  file(
    request,
    await siteFeed(getStore(), request.pagesBaseUrl, siteRefOf(request)),
    'application/atom+xml; charset=utf-8',
  );

export const handler = publicApi('site-files', {
  'GET /sites/{site_id}/sitemap.xml': sitemapIndex,
  'GET /sites/{site_id}/sitemaps/{sitemap}': sitemap,
  'GET /sites/{site_id}/feed.xml': feed,
  'GET /domains/{host}/sitemap.xml': sitemapIndex,
  'GET /domains/{host}/sitemaps/{sitemap}': sitemap,
  'GET /domains/{host}/feed.xml': feed,
  'GET /domains/{host}/robots.txt': async (request) => {
    const ref = siteRefOf(request);
    const robots = 'host' in ref ? await siteRobots(getStore(), request.pagesBaseUrl, ref.host) : null;
    return file(request, robots, 'text/plain; charset=utf-8');
  },
  'GET /domains/{host}/favicon.ico': async () => iconReply(),
});
