import { LIMITS, type Device } from '@cm/contract';
import { daysEndingOn, rankHistory, topByScore, utcDay, type CtrCurve } from '@cm/core';
import { keywordUnique, mapLimit } from '@cm/store';
import type { ToolContext } from './context';
import type { Scope } from './scope';
import { publishedPagesOf } from './tracking';

/* serp_landscape's history_days: a scope's stored rank rows over its last days, read one Query per keyword. */

/** Keywords whose rows are read at once. */
const QUERIES_AT_ONCE = 8;

export interface HistorySite {
  siteDomain: string | null;
  competitors: readonly string[];
  colors: ReadonlyMap<string, string>;
  /** The curve its estimates weigh positions by (search-traffic.ts siteCtrCurve). */
  ctrCurve: CtrCurve;
}

/**
 * The scope's rank history on a device of `days` days ending today, or on its last day checked when
 * that is later (a schedule run as of a later date): for a tracked topic or page, its item first (one
 * GetItem: its device, when none is asked for, and the runs that failed); then its committed keywords
 * (the top LIMITS.historyKeywordsMax by score; the rest named in over_cap), each read with one Query of
 * its last `days` checks on the device, and the scope's published pages (one batch read). Stored data
 * only: free.
 */
export async function scopeHistory(
  ctx: ToolContext,
  scope: Scope,
  window: { days: number; device: Device | undefined },
  site: HistorySite,
) {
  const { days } = window;
  const committed = scope.keywords.filter((k) => !k.is_idea);
  const kept = topByScore(committed, LIMITS.historyKeywordsMax);
  const keptKeys = new Set(kept.map((k) => keywordUnique(k.locale, k.keyword)));
  const { type, id } = scope.info;
  const tracked =
    type !== 'keyword' && id !== null ? await ctx.store.ranks.trackedScope(ctx.siteId, { type, id }) : null;
  // A keyword's own history, or an untracked scope's, is desktop unless asked: what was checked before devices were.
  const device = window.device ?? tracked?.device ?? 'desktop';
  const [checks, pages] = await Promise.all([
    mapLimit(kept, QUERIES_AT_ONCE, (k) => ctx.store.ranks.latest(ctx.siteId, k.locale, k.keyword, days, device)),
    publishedPagesOf(ctx, scope.pages, site.siteDomain),
  ]);
  const failed = [
    ...checks.flatMap((c) => c.failed),
    ...(tracked?.failed_runs ?? []).map((run) => ({ day: run.day, error: run.error })),
  ];
  const lastDay = [...checks.flatMap((c) => c.rows), ...failed]
    .map((c) => c.day)
    .reduce((latest, day) => (day > latest ? day : latest), utcDay(ctx.now));
  const checksByKey = new Map(kept.map((k, i) => [keywordUnique(k.locale, k.keyword), checks[i]?.rows ?? []]));
  const history = rankHistory({
    days: daysEndingOn(lastDay, days),
    keywords: kept,
    rowsOf: (k) => checksByKey.get(keywordUnique(k.locale, k.keyword)) ?? [],
    siteDomain: site.siteDomain,
    competitors: site.competitors,
    colors: site.colors,
    pages: pages.map((page) => ({
      ...page,
      keywords: kept.filter((k) => page.keywords.includes(k.keyword)),
    })),
    ctrCurve: site.ctrCurve,
    overCap: committed.filter((k) => !keptKeys.has(keywordUnique(k.locale, k.keyword))).map((k) => k.keyword),
    failed,
  });
  return { ...history, device };
}
