import type { NotifyInput, NotifyResult } from '@cm/contract';
import { isStaleNotify, liveChanged, notifiedState, pageTypeOfId } from '@cm/core';
import type { PublishingContext } from './context';
import { queueOwedRelink } from './relink';

/** Attempts before concurrent notifies of one page are given up on: each retry means another one landed. */
const ATTEMPTS = 5;

/**
 * Applies the site's change to the page's state and queues relink when what readers can reach
 * changed (docs/api.md#notify). The write is optimistic, so concurrent notifies each see the state
 * they change.
 */
export async function notifyChange(ctx: PublishingContext, siteId: number, input: NotifyInput, now = new Date()): Promise<NotifyResult> {
  const reply = (matched: boolean, relink: NotifyResult['relink']): NotifyResult => ({ ok: true, matched, relink });
  if (pageTypeOfId(input.id) !== input.type) return reply(false, 'skipped');
  const { pages } = ctx.store;
  const receivedAt = now.toISOString();
  const at = input.updated_at ?? receivedAt;
  const target = { siteId, type: input.type, id: input.id };

  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await pages.liveState(siteId, input.type, input.id);
    if (!current) return reply(false, 'skipped');
    if (isStaleNotify(current.notified_at, at)) return reply(true, 'skipped');
    const next = notifiedState(current, input);
    const changedAt = liveChanged(current, next) ? receivedAt : null;
    const outcome = await pages.setLiveState(siteId, input.type, input.id, { expected: current, next, at, relinkPendingAt: changedAt ?? undefined });
    if (outcome === 'conflict') continue;
    return reply(true, await queueOwedRelink(ctx, target, { changedAt, pendingSince: current.relink_pending }));
  }
  throw new Error(`notify ${input.id}: the page kept changing under concurrent notifies`);
}
