import { LIMITS } from '@cm/contract';
import { daysEndingOn, rankHistory, topByScore, utcDay } from '@cm/core';
import { keywordUnique, mapLimit } from '@cm/store';
import type { ToolContext } from './context';
import type { Scope } from './scope';
import { publishedPagesOf } from './tracking';

/* serp_landscape's history_days: a scope's stored rank rows over the last days, read one Query per keyword. */

/** Keywords whose rows are read at once. */
const QUERIES_AT_ONCE = 8;

export interface HistorySite {
  siteDomain: string | null;
  competitors: readonly string[];
  colors: ReadonlyMap<string, string>;
}

/**
 * The scope's rank history of the `days` days ending today: its committed keywords (the top
 * LIMITS.historyKeywordsMax by score; the rest named in over_cap), each read with one Query of its
 * range of days, and the scope's published pages (one batch read). Stored data only: free.
 */
export async function scopeHistory(ctx: ToolContext, scope: Scope, days: number, site: HistorySite) {
  const window = daysEndingOn(utcDay(ctx.now), days);
  const first = window[0] ?? utcDay(ctx.now);
  const last = window[window.length - 1] ?? first;
  const committed = scope.keywords.filter((k) => !k.is_idea);
  const kept = topByScore(committed, LIMITS.historyKeywordsMax);
  const keptKeys = new Set(kept.map((k) => keywordUnique(k.locale, k.keyword)));
  const [rows, pages] = await Promise.all([
    mapLimit(kept, QUERIES_AT_ONCE, (k) => ctx.store.ranks.range(ctx.siteId, k.locale, k.keyword, first, last)),
    publishedPagesOf(ctx, scope.pages, site.siteDomain),
  ]);
  const rowsByKey = new Map(kept.map((k, i) => [keywordUnique(k.locale, k.keyword), rows[i] ?? []]));
  return rankHistory({
    days: window,
    keywords: kept,
    rowsOf: (k) => rowsByKey.get(keywordUnique(k.locale, k.keyword)) ?? [],
    siteDomain: site.siteDomain,
    competitors: site.competitors,
    colors: site.colors,
    pages: pages.map((page) => ({
      ...page,
      keywords: kept.filter((k) => page.keywords.includes(k.keyword)),
    })),
    overCap: committed.filter((k) => !keptKeys.has(keywordUnique(k.locale, k.keyword))).map((k) => k.keyword),
  });
}
