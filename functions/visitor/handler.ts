import { ListingQuery, SectionParams, SiteRootParams, VisitorParams, type PageType } from '@cm/contract';
import { listingPage, unavailablePage, visitorPage, type ListingView, type VisitorPage } from '@cm/publishing';
import { cacheableHtml, getStore, html, publicApi, type ApiRequest } from '@cm/runtime';
import type * as z from 'zod/mini';

/** The site a request names, or null when its path parameters name none (then the reader gets a 404). */
const siteRefOf = (params: z.infer<typeof SiteRootParams>) =>
  params.site_id !== undefined ? { siteId: params.site_id } : params.host !== undefined ? { host: params.host } : null;

/** A reader's page: cached when it is there; a 404 or 410 never is, and a client that asks for JSON gets the error shape. */
function answer(request: ApiRequest, page: VisitorPage) {
  if (page.status === 200) return cacheableHtml(request.event, page.html, page.modifiedAt);
  if (request.event.headers.accept?.includes('application/json')) throw page.error;
  // Never cached: a draft once published, or a deleted page restored, shows at once.
  return html(page.status, page.html, { 'cache-control': 'no-store' });
}

const visit = (type: PageType) => async (request: ApiRequest) => {
  const params = VisitorParams.safeParse(request.event.pathParameters ?? {});
  const ref = params.success ? siteRefOf(params.data) : null;
  const page =
    params.success && ref
      ? await visitorPage(getStore(), request.pagesBaseUrl, ref, type, params.data.slug)
      : unavailablePage(404);
  return answer(request, page);
};

const list = (viewOf: (request: ApiRequest) => ListingView | null) => async (request: ApiRequest) => {
  const params = SiteRootParams.safeParse(request.event.pathParameters ?? {});
  const query = ListingQuery.safeParse(request.event.queryStringParameters ?? {});
  const ref = params.success ? siteRefOf(params.data) : null;
  const view = viewOf(request);
  const page =
    ref && view && query.success
      ? await listingPage(getStore(), request.pagesBaseUrl, ref, view, query.data.before)
      : unavailablePage(404);
  return answer(request, page);
};

const section = (kind: 'category' | 'topic') =>
  list((request) => {
    const params = SectionParams.safeParse(request.event.pathParameters ?? {});
    return params.success ? { kind, slug: params.data.section } : null;
  });

const home = list(() => ({ kind: 'home' }));
const questions = list(() => ({ kind: 'questions' }));

export const handler = publicApi('visitor', {
  'GET /sites/{site_id}': home,
  'GET /sites/{site_id}/articles/{slug}': visit('article'),
  'GET /sites/{site_id}/questions/{slug}': visit('question'),
  'GET /sites/{site_id}/questions': questions,
  'GET /sites/{site_id}/categories/{section}': section('category'),
  'GET /sites/{site_id}/topics/{section}': section('topic'),
  'GET /domains/{host}': home,
  'GET /domains/{host}/articles/{slug}': visit('article'),
  'GET /domains/{host}/questions/{slug}': visit('question'),
  'GET /domains/{host}/questions': questions,
  'GET /domains/{host}/categories/{section}': section('category'),
  'GET /domains/{host}/topics/{section}': section('topic'),
  'GET /domains/{host}/{proxy+}': async (request) => answer(request, unavailablePage(404)),
});
