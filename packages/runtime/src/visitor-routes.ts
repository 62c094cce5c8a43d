import { requestedPage, type SiteFileRead, type VisitorRoute } from '@cm/publishing';
import { cacheableFile, cacheableHtml, html } from './http/replies';
import type { RouteHandler } from './http/request';
import { getStore } from './services';

/* The handlers of the routes readers reach: a site's pages (the visitor function) and its files (site-files). */

/**
 * A visitor route: the page its request names, cached when it is there; a 404 or 410 never is, and a
 * client that asks for JSON gets the error shape.
 */
export const visitorRoute =
  (route: VisitorRoute): RouteHandler =>
  async ({ event, pagesBaseUrl }) => {
    const request = { path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {} };
    const page = await requestedPage(getStore(), pagesBaseUrl, route, request);
    if (page.status === 200) return cacheableHtml(event, page.html, page.modifiedAt);
    if (event.headers.accept?.includes('application/json')) throw page.error;
    // Never cached: a draft once published, or a deleted page restored, shows at once.
    return html(page.status, page.html, { 'cache-control': 'no-store' });
  };

/** A site-files route: the file its request names, which any cache may keep (404 when there is none). */
export const siteFileRoute =
  (read: SiteFileRead): RouteHandler =>
  async ({ event, pagesBaseUrl }) => {
    const file = await read(getStore(), pagesBaseUrl, event.pathParameters ?? {});
    return cacheableFile(event, file.body, file.contentType);
  };
