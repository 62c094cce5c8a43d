import type { NotifyInput, NotifyResult } from '@cm/contract';
import { liveChanged, notifiedState, pageTypeOfId, siteTime, type LiveState } from '@cm/core';
import type { NotifyApplied } from '@cm/store';
import type { PublishingContext } from './context';
import { announcePage } from './indexnow';
import { queueOwedRelink, type RelinkTarget } from './relink';

const UNMATCHED: NotifyResult = { ok: true, matched: false, relink: 'skipped', applied: false, reason: 'unmatched' };
const STALE: NotifyResult = { ok: true, matched: true, relink: 'skipped', applied: false, reason: 'stale' };

/**
 * Applies the site's change to the page's state and queues relink when what readers can reach
 * changed (docs/api.md#notify). The state a notify sets does not depend on the page's current one, so
 * it is one write with no read before it: concurrent notifies of a page never retry, and the
 * latest-dated one is the state that stays (an earlier-dated one that lands after it is stale).
 */
export async function notifyChange(
  ctx: PublishingContext,
  siteId: number,
  input: NotifyInput,
  now = new Date(),
): Promise<NotifyResult> {
  if (pageTypeOfId(input.id) !== input.type) return UNMATCHED;
  const { pageLive } = ctx.store;
  const receivedAt = now.toISOString();
  const next = notifiedState(input);
  const written = await pageLive.applyNotify(siteId, input.type, input.id, {
    next,
    receivedAt,
    siteClock: siteTime(input.updated_at, receivedAt),
  });
  if (written === 'unmatched') return UNMATCHED;
  if (written === 'stale') return STALE;
  const page = { siteId, type: input.type, id: input.id };
  const { relink, changed } = await relinkOwed(ctx, page, written, { next, at: receivedAt });
  if (changed) await announcePage(ctx, siteId, page, now);
  return { ok: true, matched: true, relink, applied: true };
}

/**
 * After a write of the page's state (a notify's, a scheduled change's) at `at`: the relink it owes when
 * what readers can reach changed, and whether it did. The write marked a relink owed from `at` unless one was owed already. A
 * change owes a relink of its own (a relink's progress is kept by the time it was asked for), so an older
 * mark is moved to `at`; a mark that turned out not owed is taken back.
 */
export async function relinkOwed(
  ctx: PublishingContext,
  page: RelinkTarget,
  written: NotifyApplied,
  change: { next: LiveState | null; at: string },
): Promise<{ relink: 'queued' | 'skipped'; changed: boolean }> {
  const { pageLive } = ctx.store;
  const { siteId, type, id } = page;
  const { before, relinkPendingBefore, markedAt } = written;
  const { next, at } = change;
  const changed = before !== null && next !== null && liveChanged(before, next);
  if (changed && markedAt === null) await pageLive.markRelinkPending(siteId, type, id, at);
  if (!changed && markedAt !== null) await pageLive.clearRelinkPending(siteId, type, id, markedAt);
  const relink = await queueOwedRelink(ctx, page, {
    changedAt: changed ? at : null,
    pendingSince: relinkPendingBefore,
  });
  return { relink, changed };
}
