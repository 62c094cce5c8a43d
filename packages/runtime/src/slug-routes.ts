import { PageIdParams, PAGE_TYPES, RedirectParams, RenameInput } from '@cm/contract';
import { pageRedirects, removeRedirect, renamePage } from '@cm/publishing';
import { json } from './http';
import type { Handlers } from './http/router';
import { publishingContext } from './publishing';
import { getStore } from './services';

/* The routes of a page's slug (docs/api/publishing.md#renaming-a-page), each within the key's site. */

/** Renaming a page and removing its old slugs' redirects, of both page types: the publish function's. */
export const slugWriteRoutes: Handlers = Object.fromEntries(
  PAGE_TYPES.flatMap((type) => [
    [
      `POST /${type}s/{id}/rename`,
      async (request) => {
        const page = { type, id: request.params(PageIdParams).id };
        const { slug } = request.body(RenameInput);
        return json(
          200,
          await renamePage(publishingContext(), request.siteId, page, slug, { siteRoot: request.siteRoot() }),
        );
      },
    ],
    [
      `DELETE /${type}s/{id}/redirects/{slug}`,
      async (request) => {
        const { id, slug } = request.params(RedirectParams);
        return json(
          200,
          await removeRedirect(publishingContext(), request.siteId, { type, id }, slug, request.siteRoot()),
        );
      },
    ],
  ]),
);

/** A page's slug and its redirects, of both page types: the read function's. */
export const slugReadRoutes: Handlers = Object.fromEntries(
  PAGE_TYPES.map((type) => [
    `GET /${type}s/{id}/redirects`,
    async (request) => {
      const page = { type, id: request.params(PageIdParams).id };
      return json(200, await pageRedirects(getStore(), request.siteId, page, request.siteRoot()));
    },
  ]),
);
