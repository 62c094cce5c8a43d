import { VisitorParams, type PageType } from '@cm/contract';
import { unavailablePage, visitorPage } from '@cm/publishing';
import { api, getStore, html, type ApiRequest } from '@cm/runtime';

const visit = (type: PageType) => async (request: ApiRequest) => {
  const params = VisitorParams.safeParse(request.event.pathParameters ?? {});
  const page = params.success ? await visitorPage(getStore(), request.baseUrl, params.data.site_id, type, params.data.slug) : unavailablePage(404);
  // A client that asks for JSON gets the API's error shape instead of the reader's HTML.
  if (page.status !== 200 && request.event.headers.accept?.includes('application/json')) throw page.error;
  return html(page.status, page.html);
};

export const handler = api('visitor', {
  'GET /sites/{site_id}/articles/{slug}': visit('article'),
  'GET /sites/{site_id}/questions/{slug}': visit('question'),
});
