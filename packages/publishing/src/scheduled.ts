import { SERVICE_LIMITS } from '@cm/contract';
import { scheduledState, type LiveState, minuteOf } from '@cm/core';
import { mapLimit, type DueChange, type NotifyApplied } from '@cm/store';
import type { PublishingContext } from './context';
import { announcePage } from './indexnow';
import { relinkOwed } from './notify';

/*
 * The page schedule sweep (docs/api/publishing.md#pages-on-a-schedule): the page-schedule function's
 * work, every minute. It reads only the minutes due since the last one it finished, never a site's pages.
 */

/** Changes applied at once. */
const PARALLEL = 10;
const MINUTE_MS = 60_000;

/** What one sweep did: the changes it applied, and those a republish or a notify had replaced. */
export type ScheduleSweep = {
  applied: number;
  replaced: number;
};

/** The minutes after `from` up to `to` (both UTC minutes, `to` included), at most `max` of them. */
function minutesAfter(from: string, to: string, max: number): string[] {
  const minutes: string[] = [];
  for (let at = Date.parse(`${from}Z`) + MINUTE_MS; minutes.length < max; at += MINUTE_MS) {
    const minute = minuteOf(new Date(at).toISOString());
    if (minute > to) break;
    minutes.push(minute);
  }
  return minutes;
}

/**
 * Applies every scheduled change due by `now`: the minutes after the last one finished (its first run
 * looks back `scheduleSweepMinutesMax` minutes), at most that many minutes and `scheduleSweepChangesMax`
 * changes a run (the next run, a minute later, goes on). A minute is finished once every change in it
 * was applied, or found replaced, and removed; the current minute never is (a change may still be made
 * due in it). A run delivered twice, or two at once, apply each change once: its write is conditional.
 */
export async function sweepSchedules(ctx: PublishingContext, now: Date): Promise<ScheduleSweep> {
  const { schedules } = ctx.store;
  const at = now.toISOString();
  const current = minuteOf(at);
  const maxMinutes = SERVICE_LIMITS.scheduleSweepMinutesMax;
  const last =
    (await schedules.sweptThrough()) ?? minuteOf(new Date(now.getTime() - maxMinutes * MINUTE_MS).toISOString());
  let budget = SERVICE_LIMITS.scheduleSweepChangesMax;
  let finished: string | null = null;
  let applied = 0;
  let replaced = 0;
  for (const minute of minutesAfter(last, current, maxMinutes)) {
    const { changes, more } = await schedules.due(minute, budget);
    const ready = changes.filter((change) => change.at <= at);
    const results = await mapLimit(ready, PARALLEL, (change) => applyScheduledChange(ctx, change, at));
    const done = results.filter(Boolean).length;
    applied += done;
    replaced += results.length - done;
    budget -= ready.length;
    if (more || ready.length < changes.length || minute === current || budget === 0) break;
    finished = minute;
  }
  if (finished !== null) await schedules.sweptTo(finished);
  return { applied, replaced };
}

/**
 * Applies one scheduled change at `at`, unless a republish or a notify replaced it (false), then removes
 * it: a change removed only after it was applied is found again by a later sweep, and found applied.
 */
async function applyScheduledChange(ctx: PublishingContext, change: DueChange, at: string): Promise<boolean> {
  const next = scheduledState(change.change);
  const written = await ctx.store.schedules.apply(change, next, at);
  if (written !== 'stale') await readersReachChanged(ctx, change, written, { next, at });
  await ctx.store.schedules.done(change);
  return written !== 'stale';
}

/**
 * What readers can reach of the page changed by its schedule, as a publish or a notify of the state
 * would change it: the pages linking to it are relinked (listings, sitemaps and the feed read the page's
 * state, which the change's write set), and IndexNow is told. The one place a scheduled change reaches readers.
 */
async function readersReachChanged(
  ctx: PublishingContext,
  change: DueChange,
  written: NotifyApplied,
  state: { next: LiveState; at: string },
): Promise<void> {
  const page = { type: change.type, id: change.id };
  const { changed } = await relinkOwed(ctx, { siteId: change.siteId, ...page }, written, state);
  if (changed) await announcePage(ctx, change.siteId, page, new Date(state.at));
}
