import {
  ArticleInput,
  PageIdParams,
  QuestionInput,
  RedirectParams,
  RenameInput,
  SiteIdBody,
  type PageType,
} from '@cm/contract';
import { checkBodySiteId } from '@cm/core';
import { publishPage, removeRedirect, renamePage, type PublishInput } from '@cm/publishing';
import { api, enqueue, getStore, json, type ApiRequest } from '@cm/runtime';

/** A body for another site is 403 whatever else is wrong with it: its site_id is checked before the rest is parsed. */
async function publish(request: ApiRequest, parse: () => PublishInput) {
  checkBodySiteId(request.siteId, request.body(SiteIdBody).site_id);
  const reply = await publishPage({ store: getStore(), enqueue }, request.siteId, parse(), {
    siteRoot: request.siteRoot(),
  });
  request.observation.metric('publishes');
  return json(reply.created ? 201 : 200, reply);
}

/** Renames the page the path names, within the key's site. */
async function rename(request: ApiRequest, type: PageType) {
  const page = { type, id: request.params(PageIdParams).id };
  const { slug } = request.body(RenameInput);
  return json(200, await renamePage(getStore(), request.siteId, page, slug, { siteRoot: request.siteRoot() }));
}

/** Removes a redirect of the page the path names, within the key's site. */
async function unredirect(request: ApiRequest, type: PageType) {
  const { id, slug } = request.params(RedirectParams);
  return json(200, await removeRedirect(getStore(), request.siteId, { type, id }, slug, request.siteRoot()));
}

export const handler = api('publish', {
  'POST /articles': (request) => publish(request, () => ({ type: 'article', value: request.body(ArticleInput) })),
  'POST /questions': (request) => publish(request, () => ({ type: 'question', value: request.body(QuestionInput) })),
  'POST /articles/{id}/rename': (request) => rename(request, 'article'),
  'POST /questions/{id}/rename': (request) => rename(request, 'question'),
  'DELETE /articles/{id}/redirects/{slug}': (request) => unredirect(request, 'article'),
  'DELETE /questions/{id}/redirects/{slug}': (request) => unredirect(request, 'question'),
});
