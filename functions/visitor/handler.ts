import { VisitorParams, type PageType } from '@cm/contract';
import { unavailablePage, visitorPage } from '@cm/publishing';
import { api, cacheableHtml, getStore, html, type ApiRequest } from '@cm/runtime';

const visit = (type: PageType) => async (request: ApiRequest) => {
  const params = VisitorParams.safeParse(request.event.pathParameters ?? {});
  const page = params.success
    ? await visitorPage(getStore(), request.baseUrl, params.data.site_id, type, params.data.slug)
    : unavailablePage(404);
  if (page.status === 200) return cacheableHtml(request.event, page.html, page.modifiedAt);
  // A client that asks for JSON gets the API's error shape instead of the reader's HTML.
  if (request.event.headers.accept?.includes('application/json')) throw page.error;
  // Never cached: a draft once published, or a deleted page restored, shows at once.
  return html(page.status, page.html, { 'cache-control': 'no-store' });
};

export const handler = api('visitor', {
  'GET /sites/{site_id}/articles/{slug}': visit('article'),
  'GET /sites/{site_id}/questions/{slug}': visit('question'),
});
