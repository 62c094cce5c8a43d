import { LIMITS, type RefreshEntry, type SearchTrafficInput } from '@cm/contract';
import {
  ctrCurveOf,
  daysEndingOn,
  deltaOf,
  figuresOver,
  NO_FIGURES,
  ownCtrByPosition,
  positionCountsOf,
  queriesAndPages,
  dayAfter,
  searchConsoleToday,
  searchPlanDays,
  daysHeld,
  trafficWindows,
  utcDay,
  type CtrCurve,
  type DayWindow,
  type PageSelection,
  type PositionCounts,
} from '@cm/core';
import { DATABASE, rowOrNotFound, type ToolContext } from './context';

/*
 * search_traffic (docs/api/tracking-tools.md#search_traffic): Search Console's figures of the site, a page
 * or a topic from the stored days (one Query of them), and the site's refresh queue (one Query of a page).
 * Stored data only: free.
 */

type Reader = Pick<ToolContext, 'siteId' | 'store'>;

/** Of days oldest first, the `count` days that end with the last of them. */
function endingAtLast<Day extends { date: string }>(days: readonly Day[], count: number): Day[] {
  const last = days.at(-1);
  if (!last) return [];
  const from = daysEndingOn(last.date, count)[0] ?? last.date;
  return days.filter((day) => day.date >= from);
}

/**
 * The site's stored days of the `count` days that end with its last stored one: one Query. The last
 * stored day is at the latest today's import day (Search Console's Pacific day and lag), and no older
 * than the oldest day yesterday's plan asked (stored final, rows or none, whatever today's plan has not
 * read yet or Google has not made final): the Query starts `count` days before that one.
 */
async function lastDays<Day extends { date: string }>(
  ctx: Reader,
  now: Date,
  count: number,
  read: (from: string, to: string) => Promise<Day[]>,
): Promise<Day[]> {
  const today = searchConsoleToday(now);
  const oldestStored = searchPlanDays(dayAfter(today, -1)).at(-1) ?? today;
  const from = daysEndingOn(oldestStored, count)[0] ?? today;
  return endingAtLast(await read(from, today), count);
}

/** The site's own curve from the last 28 stored days' counts by position, else the published one (visibility.ts). */
const curveOfDays = (days: ReadonlyArray<{ date: string } & PositionCounts>): CtrCurve =>
  ctrCurveOf(ownCtrByPosition(endingAtLast(days, LIMITS.decayWindowDays)));

/**
 * The CTR curve of the site's rank estimates: its own CTR by position over its last 28 days of Search
 * Console (one Query of at most 34 days' counts by position), where it has them, else the published curve.
 */
export async function siteCtrCurve(ctx: Reader, now: Date): Promise<CtrCurve> {
  const { store, siteId } = ctx;
  return curveOfDays(
    await lastDays(ctx, now, LIMITS.decayWindowDays, (from, to) => store.searchDays.positionCounts(siteId, from, to)),
  );
}

/** The scope asked for and the site's pages it sums: the site, a page (its published id) or a topic's pages. */
async function trafficScope(ctx: Reader, input: SearchTrafficInput) {
  const publishedOf = (pages: ReadonlyArray<{ published_id?: string }>): PageSelection =>
    new Set(pages.flatMap((p) => (p.published_id === undefined ? [] : [p.published_id])));
  if (input.page_id !== undefined) {
    const page = await rowOrNotFound(ctx, 'cm_pages', input.page_id);
    return { scope: { type: 'page' as const, id: page.id, name: page.title }, selection: publishedOf([page]) };
  }
  if (input.topic_id !== undefined) {
    const topic = await rowOrNotFound(ctx, 'cm_topics', input.topic_id);
    const pages = await ctx.store.rows.byField(ctx.siteId, 'cm_pages', 'topic_id', topic.id);
    return { scope: { type: 'topic' as const, id: topic.id, name: topic.name }, selection: publishedOf(pages) };
  }
  return { scope: { type: 'site' as const, id: null, name: 'site' }, selection: 'site' as const };
}

/** A queue entry as the agent reads it: flagged, measuring (its measure due 28 days after the republish), or measured. */
function queueStatus(entry: RefreshEntry) {
  if (entry.measured) return { ...entry, status: entry.measured.outcome, measure_due_on: entry.measured.measured_on };
  if (entry.refreshed_at === null) return { ...entry, status: 'flagged' as const, measure_due_on: null };
  const due = dayAfter(utcDay(new Date(entry.refreshed_at)), LIMITS.decayWindowDays);
  return { ...entry, status: 'measuring' as const, measure_due_on: due };
}

export async function searchTraffic(ctx: ToolContext, input: SearchTrafficInput) {
  const { scope, selection } = await trafficScope(ctx, input);
  const [days, queue, connection] = await Promise.all([
    lastDays(ctx, ctx.now, 2 * input.window_days, (from, to) => ctx.store.searchDays.range(ctx.siteId, from, to)),
    scope.type === 'site'
      ? ctx.store.refreshQueue.list(ctx.siteId, {
          limit: input.queue_limit ?? LIMITS.refreshQueueDefault,
          ...(input.queue_cursor === undefined ? {} : { cursor: input.queue_cursor }),
        })
      : null,
    ctx.store.searchConsole.get(ctx.siteId),
  ]);
  const refresh_queue = queue && { entries: queue.entries.map(queueStatus), next_cursor: queue.next_cursor };
  const last = days.at(-1);
  const windows = last ? trafficWindows(last.date, input.window_days) : null;
  const current = windows ? figuresOver(days, windows.window, selection) : NO_FIGURES;
  const before = windows ? figuresOver(days, windows.previous, selection) : NO_FIGURES;
  const lists = windows
    ? queriesAndPages(days, windows.window, selection, {
        pages: input.pages ?? LIMITS.trafficPagesDefault,
        queries: input.queries ?? LIMITS.trafficQueriesDefault,
        candidates: input.candidates ?? LIMITS.trafficCandidatesDefault,
      })
    : { pages: [], queries: [], cannibalisation: [], candidates: [] };
  const note = !connection
    ? last
      ? 'Search Console is not connected for this site: the figures are the days stored while it was (PUT /v1/search-console connects it).'
      : 'No Search Console property is connected for this site: connect it (PUT /v1/search-console); figures follow its first import.'
    : !last
      ? 'Search Console is connected: figures follow its first import.'
      : selection !== 'site' && selection.size === 0
        ? `This ${scope.type} has no published page: Search Console has no figures for it.`
        : undefined;
  // Each window with the days it holds: a day not imported is missing from its sums, not a day without clicks.
  const held = (window: DayWindow) => ({ ...window, days: daysHeld(days, window) });
  return {
    data_source: last?.data_source ?? DATABASE,
    connected: connection !== null,
    ...(note === undefined ? {} : { note }),
    scope,
    window: windows && held(windows.window),
    previous_window: windows && held(windows.previous),
    totals: current,
    previous_totals: before,
    deltas: deltaOf(current, before),
    pages: lists.pages,
    queries: lists.queries,
    keyword_candidates: lists.candidates,
    cannibalisation: lists.cannibalisation,
    ctr_curve: curveOfDays(days.map((day) => ({ date: day.date, ...positionCountsOf(day) }))).name,
    refresh_queue,
  };
}
