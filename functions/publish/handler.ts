import { ArticleInput, PUBLISH_BODY_LIMIT_BYTES, QuestionInput } from '@cm/contract';
import { publishPage, type PublishInput } from '@cm/publishing';
import { api, enqueue, getStore, json, type ApiRequest } from '@cm/runtime';

async function publish(request: ApiRequest, input: PublishInput) {
  const reply = await publishPage({ store: getStore(), enqueue }, request.siteId, input, { baseUrl: request.baseUrl });
  request.observation.metric('publishes');
  return json(reply.created ? 201 : 200, reply);
}

export const handler = api(
  'publish',
  {
    'POST /articles': (request) => publish(request, { type: 'article', value: request.body(ArticleInput) }),
    'POST /questions': (request) => publish(request, { type: 'question', value: request.body(QuestionInput) }),
  },
  { bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES },
);
