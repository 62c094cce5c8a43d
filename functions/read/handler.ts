import { PageIdParams, PageListQuery } from '@cm/contract';
import { listPages, readPage } from '@cm/publishing';
import { api, getStore, json, slugReadRoutes } from '@cm/runtime';

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
  ...slugReadRoutes,
});
