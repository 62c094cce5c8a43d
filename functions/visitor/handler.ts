import { ApiError, VisitorParams, type PageType } from '@cm/contract';
import { escapeHtml, pageBlocks, pageId, pageRecord, pageTypeOfId, renderedLinkTargets, renderPage, visitorUrl } from '@cm/core';
import { api, getStore, html, type ApiRequest } from '@cm/runtime';

/** Readers get an HTML page for 404 and 410; a client that asks for JSON gets the API's error shape. */
function unavailable(request: ApiRequest, status: 404 | 410) {
  const message = status === 410 ? 'This page has been removed.' : 'This page does not exist.';
  if (request.event.headers.accept?.includes('application/json')) {
    throw new ApiError(status === 410 ? 'gone' : 'not_found', message);
  }
  const title = status === 410 ? 'Gone' : 'Not found';
  return html(status, `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="robots" content="noindex"></head><body><h1>${title}</h1><p>${escapeHtml(message)}</p></body></html>\n`);
}

async function visit(request: ApiRequest, type: PageType) {
  const params = VisitorParams.safeParse(request.event.pathParameters ?? {});
  if (!params.success) return unavailable(request, 404);
  const { site_id: siteId, slug } = params.data;
  const pages = getStore().pages;
  const page = await pages.get(siteId, type, pageId(siteId, type, slug));
  if (!page) return unavailable(request, 404);
  if (page.deleted) return unavailable(request, 410);
  if (page.status !== 'published') return unavailable(request, 404);

  const blocks = [...pageBlocks(page.doc), ...page.community_answers.flatMap((a) => a.blocks)];
  const linked = renderedLinkTargets(blocks).flatMap((id) => {
    const linkedType = pageTypeOfId(id);
    return linkedType ? [{ id, type: linkedType }] : [];
  });
  const targets = linked.length > 0 ? await pages.linkTargets(siteId, linked) : new Map();
  const body = renderPage(pageRecord(page), {
    pageUrl: visitorUrl(request.baseUrl, siteId, type, slug),
    linkTarget: (id) => {
      const target = targets.get(id);
      return target?.live ? visitorUrl(request.baseUrl, siteId, target.type, target.slug) : null;
    },
  });
  return html(200, body);
}

export const handler = api('visitor', {
  'GET /sites/{site_id}/articles/{slug}': (request) => visit(request, 'article'),
  'GET /sites/{site_id}/questions/{slug}': (request) => visit(request, 'question'),
});
