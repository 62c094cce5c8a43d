import { PAGE_TYPES, RedirectParams, RenameInput, RevisionParams, PageIdParams } from '@cm/contract';
import { removeRedirect, renamePage, revisionToPublish, type PublishInput } from '@cm/publishing';
import { json } from './http';
import type { ApiRequest, ApiResult } from './http/request';
import type { Handlers } from './http/router';
import { publishingContext } from './publishing';
import { getStore } from './services';

/*
 * The publish function's routes of a page beside its publish, of both page types, each within the key's
 * site: renaming it and removing an old slug's redirect (docs/api/publishing.md#renaming-a-page), and
 * rolling it back to a revision (docs/api/publishing.md#revisions), which is a publish (`publish`).
 */
export const pageWriteRoutes = (
  publish: (request: ApiRequest, input: () => Promise<PublishInput>) => Promise<ApiResult>,
): Handlers =>
  Object.fromEntries(
    PAGE_TYPES.flatMap((type) => [
      [
        `POST /${type}s/{id}/rename`,
        async (request: ApiRequest) => {
          const page = { type, id: request.params(PageIdParams).id };
          const { slug } = request.body(RenameInput);
          const options = { siteRoot: request.siteRoot() };
          return json(200, await renamePage(publishingContext(), request.siteId, page, slug, options));
        },
      ],
      [
        `DELETE /${type}s/{id}/redirects/{slug}`,
        async (request: ApiRequest) => {
          const { id, slug } = request.params(RedirectParams);
          return json(
            200,
            await removeRedirect(publishingContext(), request.siteId, { type, id }, slug, request.siteRoot()),
          );
        },
      ],
      [
        `POST /${type}s/{id}/revisions/{revision_id}/restore`,
        (request: ApiRequest) =>
          publish(request, () => revisionToPublish(getStore(), request.siteId, type, request.params(RevisionParams))),
      ],
    ]),
  );
