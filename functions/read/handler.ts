import { PageIdParams, PageListQuery, RevisionListQuery, type PageType } from '@cm/contract';
import { listPages, listRevisions, readPage } from '@cm/publishing';
import { api, getStore, json, type ApiRequest } from '@cm/runtime';

const list = async (request: ApiRequest, type: PageType) =>
  json(200, await listPages(getStore(), request.siteId, type, request.query(PageListQuery), request.siteRoot()));
const read = async (request: ApiRequest, type: PageType) =>
  json(200, await readPage(getStore(), request.siteId, type, request.params(PageIdParams).id));
const revisions = async (request: ApiRequest, type: PageType) => {
  const page = { type, id: request.params(PageIdParams).id };
  return json(200, await listRevisions(getStore(), request.siteId, page, request.query(RevisionListQuery)));
};

export const handler = api('read', {
  'GET /articles': (request) => list(request, 'article'),
  'GET /questions': (request) => list(request, 'question'),
  'GET /articles/{id}': (request) => read(request, 'article'),
  'GET /questions/{id}': (request) => read(request, 'question'),
  'GET /articles/{id}/revisions': (request) => revisions(request, 'article'),
  'GET /questions/{id}/revisions': (request) => revisions(request, 'question'),
});
