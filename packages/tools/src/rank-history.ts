import { LIMITS } from '@cm/contract';
import { daysEndingOn, rankHistory, topByScore, utcDay } from '@cm/core';
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
}

/**
 * The scope's rank history of `days` days ending today, or on its last day checked when that is later
 * (a schedule run as of a later date): its committed keywords (the top LIMITS.historyKeywordsMax by
 * score; the rest named in over_cap), each read with one Query of its last `days` checks, the scope's
 * published pages (one batch read), and, for a tracked topic or page, its item (one GetItem: the runs
 * that failed). Stored data only: free.
 */
export async function scopeHistory(ctx: ToolContext, scope: Scope, days: number, site: HistorySite) {
  const committed = scope.keywords.filter((k) => !k.is_idea);
  const kept = topByScore(committed, LIMITS.historyKeywordsMax);
  const keptKeys = new Set(kept.map((k) => keywordUnique(k.locale, k.keyword)));
  const { type, id } = scope.info;
  const [checks, pages, tracked] = await Promise.all([
    mapLimit(kept, QUERIES_AT_ONCE, (k) => ctx.store.ranks.latest(ctx.siteId, k.locale, k.keyword, days)),
    publishedPagesOf(ctx, scope.pages, site.siteDomain),
    type !== 'keyword' && id !== null ? ctx.store.ranks.trackedScope(ctx.siteId, { type, id }) : null,
  ]);
  const failed = [
    ...checks.flatMap((c) => c.failed),
    ...(tracked?.failed_runs ?? []).map((run) => ({ day: run.day, error: run.error })),
  ];
  const lastDay = [...checks.flatMap((c) => c.rows), ...failed]
    .map((c) => c.day)
    .reduce((latest, day) => (day > latest ? day : latest), utcDay(ctx.now));
  const checksByKey = new Map(kept.map((k, i) => [keywordUnique(k.locale, k.keyword), checks[i]?.rows ?? []]));
  return rankHistory({
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
    overCap: committed.filter((k) => !keptKeys.has(keywordUnique(k.locale, k.keyword))).map((k) => k.keyword),
    failed,
  });
}
