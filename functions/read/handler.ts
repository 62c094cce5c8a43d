import { PageIdParams, PageListQuery, type PageType } from '@cm/contract';
import { listPages, readPage } from '@cm/publishing';
import { api, getStore, json, pageReadRoutes, type ApiRequest } from '@cm/runtime';

const list = async (request: ApiRequest, type: PageType) =>
  json(200, await listPages(getStore(), request.siteId, type, request.query(PageListQuery), request.siteRoot()));
const read = async (request: ApiRequest, type: PageType) =>
  json(200, await readPage(getStore(), request.siteId, type, request.params(PageIdParams).id));

export const handler = api('read', {
  'GET /articles': (request) => list(request, 'article'),
  'GET /questions': (request) => list(request, 'question'),
  'GET /articles/{id}': (request) => read(request, 'article'),
  'GET /questions/{id}': (request) => read(request, 'question'),
  ...pageReadRoutes,
});
