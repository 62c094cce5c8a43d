import { isLive, type PageType, type RelinkMessage } from '@cm/contract';
import type { PublishingContext } from './context';

/** Linking pages per message: small conditional writes, far inside the worker's time limit. */
const PAGES_PER_MESSAGE = 100;
const PARALLEL_WRITES = 10;

export interface RelinkTarget {
  siteId: number;
  type: PageType;
  id: string;
}

/**
 * The relink a change owes: queued when the change moved the page in or out of readers' reach
 * (`changedAt`), and otherwise when an earlier change's relink is still owed (`pendingSince`, its
 * queueing failed), so a later call makes good on it. Answers whether this change queued one.
 */
export async function queueOwedRelink(
  ctx: PublishingContext,
  target: RelinkTarget,
  owed: { changedAt: string | null; pendingSince?: string | null },
): Promise<'queued' | 'skipped'> {
  const requestedAt = owed.changedAt ?? owed.pendingSince;
  if (requestedAt) {
    const message: RelinkMessage = {
      site_id: target.siteId,
      target_id: target.id,
      target_type: target.type,
      requested_at: requestedAt,
    };
    await ctx.enqueue('relink', message);
  }
  return owed.changedAt ? 'queued' : 'skipped';
}

/**
 * One step of a relink: brings up to 100 pages that link to the target in line with the target's
 * current live state, and queues the rest of the fan-out. Working from the current state (not the
 * one that queued the message) makes late, repeated and reordered messages converge on the same
 * result. Answers how many linking pages it went through.
 */
export async function relinkStep(ctx: PublishingContext, message: RelinkMessage, now = new Date()): Promise<number> {
  const { pages, links } = ctx.store;
  const { site_id: siteId, target_id: targetId, target_type: targetType } = message;
  const target = await pages.liveState(siteId, targetType, targetId);
  const live = target !== null && isLive(target.status, target.deleted);
  const batch = await links.linkingPages(siteId, targetId, { cursor: message.cursor, limit: PAGES_PER_MESSAGE });
  const at = now.toISOString();
  for (let i = 0; i < batch.pages.length; i += PARALLEL_WRITES) {
    await Promise.all(
      batch.pages
        .slice(i, i + PARALLEL_WRITES)
        .map((page) => (live ? links.restore(siteId, page, targetId, at) : links.suppress(siteId, page, targetId, at))),
    );
  }
  if (batch.cursor) await ctx.enqueue('relink', { ...message, cursor: batch.cursor } satisfies RelinkMessage);
  else if (message.requested_at) await pages.clearRelinkPending(siteId, targetType, targetId, message.requested_at);
  return batch.pages.length;
}
