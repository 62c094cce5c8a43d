import { PageIdParams, PAGE_TYPES, RevisionListQuery } from '@cm/contract';
import { listRevisions, pageRedirects } from '@cm/publishing';
import { json } from './http';
import type { Handlers } from './http/router';
import { getStore } from './services';

/*
 * The read function's routes of a page beside the page itself, of both page types, each within the
 * key's site: its slug and redirects (docs/api/publishing.md#renaming-a-page) and its revisions
 * (docs/api/publishing.md#revisions). They only read: nothing here reaches a queue.
 */
export const pageReadRoutes: Handlers = Object.fromEntries(
  PAGE_TYPES.flatMap((type) => [
    [
      `GET /${type}s/{id}/redirects`,
      async (request) => {
        const page = { type, id: request.params(PageIdParams).id };
        return json(200, await pageRedirects(getStore(), request.siteId, page, request.siteRoot()));
      },
    ],
    [
      `GET /${type}s/{id}/revisions`,
      async (request) => {
        const page = { type, id: request.params(PageIdParams).id };
        return json(200, await listRevisions(getStore(), request.siteId, page, request.query(RevisionListQuery)));
      },
    ],
  ]),
);
