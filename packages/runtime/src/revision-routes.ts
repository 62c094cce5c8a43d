import { PageIdParams, PAGE_TYPES, RevisionListQuery, RevisionParams } from '@cm/contract';
import { listRevisions, revisionToPublish, type PublishInput } from '@cm/publishing';
import { json } from './http';
import type { ApiRequest, ApiResult } from './http/request';
import type { Handlers } from './http/router';
import { getStore } from './services';

/* The routes of a page's revisions (docs/api/publishing.md#revisions), each within the key's site. */

/** Listing a page's revisions, of both page types: the read function's. */
export const revisionReadRoutes: Handlers = Object.fromEntries(
  PAGE_TYPES.map((type) => [
    `GET /${type}s/{id}/revisions`,
    async (request) => {
      const page = { type, id: request.params(PageIdParams).id };
      return json(200, await listRevisions(getStore(), request.siteId, page, request.query(RevisionListQuery)));
    },
  ]),
);

/** Rolling a page back to a revision, of both page types: a publish of it (`publish`, the publish function's). */
export const revisionRestoreRoutes = (
  publish: (request: ApiRequest, input: () => Promise<PublishInput>) => Promise<ApiResult>,
): Handlers =>
  Object.fromEntries(
    PAGE_TYPES.map((type) => [
      `POST /${type}s/{id}/revisions/{revision_id}/restore`,
      (request: ApiRequest) =>
        publish(request, () => revisionToPublish(getStore(), request.siteId, type, request.params(RevisionParams))),
    ]),
  );
