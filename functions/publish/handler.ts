import { ArticleInput, QuestionInput, SiteIdBody } from '@cm/contract';
import { checkBodySiteId } from '@cm/core';
import { publishPage, type PublishInput } from '@cm/publishing';
import { api, json, publishingContext, type ApiRequest } from '@cm/runtime';

/** A body for another site is 403 whatever else is wrong with it: its site_id is checked before the rest is parsed. */
async function publish(request: ApiRequest, parse: () => PublishInput) {
  checkBodySiteId(request.siteId, request.body(SiteIdBody).site_id);
  const reply = await publishPage(publishingContext(), request.siteId, parse(), {
    siteRoot: request.siteRoot(),
  });
  request.observation.metric('publishes');
  return json(reply.created ? 201 : 200, reply);
}

export const handler = api('publish', {
  'POST /articles': (request) => publish(request, () => ({ type: 'article', value: request.body(ArticleInput) })),
  'POST /questions': (request) => publish(request, () => ({ type: 'question', value: request.body(QuestionInput) })),
});
