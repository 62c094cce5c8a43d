import { PageIdParams, PageListQuery } from '@cm/contract';
import { listPages, pageRedirects, readPage } from '@cm/publishing';
import { api, getStore, json } from '@cm/runtime';

export const handler = api('read', {
  'GET /articles': async (request) =>
    json(200, await listPages(getStore(), request.siteId, 'article', request.query(PageListQuery), request.siteRoot())),
  'GET /questions': async (request) =>
    json(
      200,
      await listPages(getStore(), request.siteId, 'question', request.query(PageListQuery), request.siteRoot()),
    ),
  'GET /articles/{id}': async (request) =>
    json(200, await readPage(getStore(), request.siteId, 'article', request.params(PageIdParams).id)),
  'GET /questions/{id}': async (request) =>
    json(200, await readPage(getStore(), request.siteId, 'question', request.params(PageIdParams).id)),
  'GET /articles/{id}/redirects': async (request) =>
    json(
      200,
      await pageRedirects(
        getStore(),
        request.siteId,
        { type: 'article', id: request.params(PageIdParams).id },
        request.siteRoot(),
      ),
    ),
  'GET /questions/{id}/redirects': async (request) =>
    json(
      200,
      await pageRedirects(
        getStore(),
        request.siteId,
        { type: 'question', id: request.params(PageIdParams).id },
        request.siteRoot(),
      ),
    ),
});
