import { ArticleInput, PUBLISH_BODY_LIMIT_BYTES, QuestionInput, type PublishResult } from '@cm/contract';
import { preparePublish, visitorUrl } from '@cm/core';
import { api, getStore, json, type ApiRequest } from '@cm/runtime';

async function publish(request: ApiRequest, input: Parameters<typeof preparePublish>[1]) {
  const now = new Date().toISOString();
  const { id, doc, links, warnings } = preparePublish(request.siteId, input, now);
  const { created } = await getStore().pages.put({ siteId: request.siteId, type: input.type, id, doc, links, now });
  const reply: PublishResult = {
    id,
    type: input.type,
    slug: doc.slug,
    status: doc.status,
    created,
    updated_at: doc.updated_at,
    url: visitorUrl(request.baseUrl, request.siteId, input.type, doc.slug),
    warnings,
  };
  return json(created ? 201 : 200, reply);
}

export const handler = api(
  'publish',
  {
    'POST /articles': (request) => publish(request, { type: 'article', value: request.body(ArticleInput) }),
    'POST /questions': (request) => publish(request, { type: 'question', value: request.body(QuestionInput) }),
  },
  { bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES },
);
