import type { NotifyInput, NotifyResult } from '@cm/contract';
import { isStaleNotify, liveChanged, notifiedState, pageTypeOfId, siteTime, type LiveState } from '@cm/core';
import type { PublishingContext } from './context';
import { queueOwedRelink } from './relink';

/** Attempts before concurrent notifies of one page are given up on: each retry means another one landed. */
const ATTEMPTS = 5;

const UNMATCHED: NotifyResult = { ok: true, matched: false, relink: 'skipped', applied: false, reason: 'unmatched' };
const STALE: NotifyResult = { ok: true, matched: true, relink: 'skipped', applied: false, reason: 'stale' };

const sameLiveState = (a: LiveState, b: LiveState): boolean => a.status === b.status && a.deleted === b.deleted;
const clockMoves = (siteClock: string | null, at: string | null): boolean =>
  at !== null && (siteClock === null || Date.parse(at) > Date.parse(siteClock));

/**
 * Applies the site's change to the page's state and queues relink when what readers can reach
 * changed (docs/api.md#notify). The write is optimistic, so concurrent notifies each see the state
 * they change.
 */
export async function notifyChange(
  ctx: PublishingContext,
  siteId: number,
  input: NotifyInput,
  now = new Date(),
): Promise<NotifyResult> {
  if (pageTypeOfId(input.id) !== input.type) return UNMATCHED;
  const { pages } = ctx.store;
  const receivedAt = now.toISOString();
  const at = siteTime(input.updated_at, receivedAt);
  const target = { siteId, type: input.type, id: input.id };

  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await pages.liveState(siteId, input.type, input.id);
    if (!current) return UNMATCHED;
    if (isStaleNotify(current.site_clock, at)) return STALE;
    const next = notifiedState(current, input);
    const changedAt = liveChanged(current, next) ? receivedAt : null;
    // A repeat (same state, no later date) has nothing to write, so concurrent repeats never contend.
    const outcome =
      sameLiveState(current, next) && !clockMoves(current.site_clock, at)
        ? 'applied'
        : await pages.setLiveState(siteId, input.type, input.id, {
            expected: current,
            next,
            receivedAt,
            siteClock: at,
            relinkPendingAt: changedAt ?? undefined,
          });
    if (outcome === 'conflict') continue;
    const relink = await queueOwedRelink(ctx, target, { changedAt, pendingSince: current.relink_pending });
    return { ok: true, matched: true, relink, applied: true };
  }
  throw new Error(`notify ${input.id}: the page kept changing under concurrent notifies`);
}
