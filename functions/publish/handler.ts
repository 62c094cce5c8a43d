import { ArticleInput, QuestionInput, SiteIdBody } from '@cm/contract';
import { checkBodySiteId } from '@cm/core';
import { publishPage, type PublishInput } from '@cm/publishing';
import { api, json, pageWriteRoutes, publishingContext, type ApiRequest } from '@cm/runtime';

/** A publish, or a rollback (no body); a body's site_id is checked first: 403 whatever else is wrong with it. */
async function publish(request: ApiRequest, parse: () => PublishInput | Promise<PublishInput>, hasBody = true) {
  if (hasBody) checkBodySiteId(request.siteId, request.body(SiteIdBody).site_id);
  const reply = await publishPage(publishingContext(), request.siteId, await parse(), {
    siteRoot: request.siteRoot(),
  });
  request.observation.metric('publishes');
  return json(reply.created ? 201 : 200, reply);
}

export const handler = api('publish', {
  'POST /articles': (request) => publish(request, () => ({ type: 'article', value: request.body(ArticleInput) })),
  'POST /questions': (request) => publish(request, () => ({ type: 'question', value: request.body(QuestionInput) })),
  ...pageWriteRoutes((request, input) => publish(request, input, false)),
});
