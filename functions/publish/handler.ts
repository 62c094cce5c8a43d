import { ArticleInput, PUBLISH_BODY_LIMIT_BYTES, QuestionInput, type PublishResult } from '@cm/contract';
import { liveChanged, preparePublish, visitorUrl } from '@cm/core';
import { api, enqueueRelink, getStore, json, type ApiRequest } from '@cm/runtime';

async function publish(request: ApiRequest, input: Parameters<typeof preparePublish>[1]) {
  const { siteId } = request;
  const now = new Date().toISOString();
  const { id, doc, links, warnings } = preparePublish(siteId, input, now);
  const pages = getStore().pages;
  const { created, previous } = await pages.put({ siteId, type: input.type, id, doc, links, now });
  request.observation.metric('publishes');
  // A republish that brings a page back (or takes it down) relinks the pages linking to it, as a notify
  // would; a relink an earlier call owed but could not queue goes out now.
  if (previous) {
    if (liveChanged(previous, { status: doc.status, deleted: false })) {
      await pages.markRelinkPending(siteId, input.type, id, now);
      await enqueueRelink(siteId, input.type, id, now);
    } else if (previous.relink_pending) {
      await enqueueRelink(siteId, input.type, id, previous.relink_pending);
    }
  }
  const reply: PublishResult = {
    id,
    type: input.type,
    slug: doc.slug,
    status: doc.status,
    created,
    updated_at: doc.updated_at,
    url: visitorUrl(request.baseUrl, siteId, input.type, doc.slug),
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
