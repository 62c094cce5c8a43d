import { requestedPage, type SiteFileRead, type UnavailablePage, type VisitorRoute } from '@cm/publishing';
import { cacheableFile, cacheableHtml, html, movedPermanently } from './http/replies';
import type { ApiEvent, ApiResult, RouteHandler } from './http/request';
import { getStore } from './services';

/* The handlers of the routes readers reach: a site's pages (the visitor function) and its files (site-files). */

/** A 404 or 410 page: never cached, and the error shape to a client that asks for JSON. */
function unavailable(event: ApiEvent, page: UnavailablePage): ApiResult {
  if (event.headers.accept?.includes('application/json')) throw page.error;
  // Never cached: a draft once published, or a deleted page restored, shows at once.
  return html(page.status, page.html, { 'cache-control': 'no-store' });
}

/** A visitor route: the page its request names, cached when it is there. */
export const visitorRoute =
  (route: VisitorRoute): RouteHandler =>
  async ({ event, pagesBaseUrl }) => {
    const request = {
      path: event.pathParameters ?? {},
      query: event.queryStringParameters ?? {},
      trailingSlash: event.rawPath.length > 1 && event.rawPath.endsWith('/'),
    };
    const page = await requestedPage(getStore(), pagesBaseUrl, route, request);
    if (page.status === 301) return movedPermanently(page.location, page.html);
    return page.status === 200 ? cacheableHtml(event, page.html, page.modifiedAt) : unavailable(event, page);
  };

/** A site-files route: the file its request names, which any cache may keep; else the 404 page at a domain. */
export const siteFileRoute =
  (read: SiteFileRead): RouteHandler =>
  async ({ event, pagesBaseUrl }) => {
    const file = await read(getStore(), pagesBaseUrl, event.pathParameters ?? {});
    return 'status' in file ? unavailable(event, file) : cacheableFile(event, file.body, file.contentType);
  };
