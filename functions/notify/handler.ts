import { NotifyInput, type NotifyResult } from '@cm/contract';
import { isStaleNotify, liveChanged, notifiedState, pageTypeOfId } from '@cm/core';
import { api, enqueueRelink, getStore, json, type ApiRequest } from '@cm/runtime';

const reply = (matched: boolean, relink: NotifyResult['relink']) => json(200, { ok: true, matched, relink } satisfies NotifyResult);

/**
 * Seed 4.2: applies the site's change to the page's state and queues relink when what readers can
 * reach changed. The write is optimistic, so concurrent notifies each see the state they change.
 */
async function notify(request: ApiRequest) {
  const input = request.body(NotifyInput);
  request.observation.metric('notifies');
  const { siteId } = request;
  if (pageTypeOfId(input.id) !== input.type) return reply(false, 'skipped');
  const pages = getStore().pages;
  const now = new Date().toISOString();
  const at = input.updated_at ?? now;

  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await pages.liveState(siteId, input.type, input.id);
    if (!current) return reply(false, 'skipped');
    if (isStaleNotify(current.notified_at, at)) return reply(true, 'skipped');
    const next = notifiedState(current, input);
    const changed = liveChanged(current, next);
    const outcome = await pages.setLiveState(siteId, input.type, input.id, {
      expected: current,
      next,
      at,
      relinkPendingAt: changed ? now : undefined,
    });
    if (outcome === 'conflict') continue;
    if (changed) await enqueueRelink(siteId, input.type, input.id, now);
    // A relink that an earlier delivery owed but could not queue is queued again now.
    else if (current.relink_pending) await enqueueRelink(siteId, input.type, input.id, current.relink_pending);
    return reply(true, changed ? 'queued' : 'skipped');
  }
  throw new Error(`notify ${input.id}: the page kept changing under concurrent notifies`);
}

export const handler = api('notify', { 'POST /api/content/notify': notify });
