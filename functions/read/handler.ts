import { notFound, PageIdParams, PageListQuery, type PageType } from '@cm/contract';
import { pageId, pageRecord, pageTypeOfId } from '@cm/core';
import { api, getStore, json, type ApiRequest } from '@cm/runtime';

async function readById(siteId: number, type: PageType, id: string) {
  const page = pageTypeOfId(id) === type ? await getStore().pages.get(siteId, type, id) : null;
  if (!page) throw notFound(`No ${type} with id ${id}`);
  return json(200, pageRecord(page));
}

async function list(request: ApiRequest, type: PageType) {
  const query = request.query(PageListQuery);
  if (query.slug !== undefined) return readById(request.siteId, type, pageId(request.siteId, type, query.slug));
  return json(200, await getStore().pages.list(request.siteId, type, query));
}

export const handler = api('read', {
  'GET /articles': (request) => list(request, 'article'),
  'GET /questions': (request) => list(request, 'question'),
  'GET /articles/{id}': (request) => readById(request.siteId, 'article', request.params(PageIdParams).id),
  'GET /questions/{id}': (request) => readById(request.siteId, 'question', request.params(PageIdParams).id),
});
