import { isLive, RELINK_BATCH_PAGES, type PageType, type RelinkMessage, type RelinkPagesMessage } from '@cm/contract';
import { mapLimit, type RelinkRun } from '@cm/store';
import type { PublishingContext } from './context';

/**
 * The most batches one relink plans (100,000 linking pages): its planner reads them all and sends them
 * in one invocation, well inside the worker's time limit, and its run item keeps a number per batch.
 */
export const RELINK_MAX_BATCHES = 1_000;
/** Edges read per Query while planning (small items: far under a Query page's 1 MB). */
const EDGES_PER_READ = 1_000;
/** Messages sent, and page writes made, at once. */
const PARALLEL = 10;

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

/** What planning a relink did: the linking pages it found and the batches it sent; `truncated` when it stopped at the cap. */
export interface RelinkPlan {
  linkers: number;
  batches: number;
  truncated: boolean;
}

const runOf = (message: { site_id: number; target_id: string; requested_at?: string }): RelinkRun | null =>
  message.requested_at
    ? { siteId: message.site_id, targetId: message.target_id, requestedAt: message.requested_at }
    : null;

/**
 * Plans a relink: reads the pages that link to the target from the link index and sends them, 100 to a
 * message, to the relink-pages queue, whose worker only writes. Nothing goes back on the relink queue,
 * so no chain of messages grows with the fan-out (Lambda stops one at 16 invocations). Once every batch
 * is sent, the run records how many there are; whichever of it and the last batch comes last clears
 * the page's `relink_pending`. A plan is deterministic from the index, so a repeated delivery sends the
 * same batches again, which change nothing and are not counted twice. It stops at RELINK_MAX_BATCHES:
 * the pages past that keep their links as they were, and the pending mark stays.
 */
export async function planRelink(ctx: PublishingContext, message: RelinkMessage): Promise<RelinkPlan> {
  const { site_id: siteId, target_id: targetId } = message;
  const run = runOf(message);
  let batches = 0;
  let linkers = 0;
  let cursor: string | undefined;
  let truncated = false;
  do {
    const read = await ctx.store.links.linkingPages(siteId, targetId, { cursor, limit: EDGES_PER_READ });
    const sends: RelinkPagesMessage[] = [];
    for (let i = 0; i < read.pages.length; i += RELINK_BATCH_PAGES) {
      if (batches === RELINK_MAX_BATCHES) {
        truncated = true;
        break;
      }
      const pages = read.pages.slice(i, i + RELINK_BATCH_PAGES);
      sends.push({ ...message, batch: batches++, pages });
      linkers += pages.length;
    }
    await mapLimit(sends, PARALLEL, (batch) => ctx.enqueue('relink-pages', batch));
    cursor = read.cursor ?? undefined;
  } while (cursor && !truncated);
  if (run && !truncated) {
    const progress = batches === 0 ? 'finished' : await ctx.store.relinks.planned(run, batches);
    if (progress === 'finished')
      await ctx.store.pageLive.clearRelinkPending(siteId, message.target_type, targetId, run.requestedAt);
  }
  return { linkers, batches, truncated };
}

/**
 * One batch of a relink: brings its linking pages in line with the target's current live state, one
 * conditional write each (10 at a time), and one more on each page it changed (when what readers see of
 * it last changed), then counts the batch done. Working from the current state
 * (not the one that queued the relink) makes late, repeated and reordered messages converge on the
 * same result. Answers how many linking pages it went through.
 */
export async function relinkPages(
  ctx: Pick<PublishingContext, 'store'>,
  message: RelinkPagesMessage,
  now = new Date(),
): Promise<number> {
  const { pageLive, links, relinks } = ctx.store;
  const { site_id: siteId, target_id: targetId, target_type: targetType } = message;
  const target = await pageLive.liveState(siteId, targetType, targetId);
  const live = target !== null && isLive(target.status, target.deleted);
  const at = now.toISOString();
  await mapLimit(message.pages, PARALLEL, async (page) => {
    const outcome = await (live
      ? links.restore(siteId, page, targetId, at)
      : links.suppress(siteId, page, targetId, at));
    // What readers see of the page changed: its sitemap entry's lastmod moves.
    if (outcome === 'changed') await pageLive.visibleChange(siteId, page, at);
  });
  const run = runOf(message);
  if (run && (await relinks.batchDone(run, message.batch, now.getTime())) === 'finished')
    await pageLive.clearRelinkPending(siteId, targetType, targetId, run.requestedAt);
  return message.pages.length;
}
