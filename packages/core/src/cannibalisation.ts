import type { Cannibalisation, RankRow } from '@cm/contract';
import { ctrOn, type CtrCurve } from './visibility';
import { roundTo } from './rounding';

/*
 * Cannibalisation in rank history (docs/api/research-tools.md#cannibalisation): two or more of the site's
 * own URLs for one keyword, ranking the same day or taking turns as its best result. The one definition
 * of a URL's share is here.
 */

/** URLs listed per keyword, the largest share first. */
const URLS_LISTED = 5;

/** A keyword with its row per day (null: no check that day). */
export interface CannibalisationInput {
  grid: ReadonlyArray<{ keyword: { keyword: string; locale: string }; byDay: ReadonlyArray<RankRow | null> }>;
  curve: CtrCurve;
}

/**
 * Each keyword the site's URLs share, from its rank rows: `shared_days` (days two or more of its URLs
 * ranked), `swaps` (checked days on which the site's best URL was another than on its previous ranked
 * day), and per URL `best_days` (days it was the site's best result) and `share`: its part of the clicks
 * the site's URLs earned on the keyword over the window, Σ CTR(position) of the URL over Σ CTR(position)
 * of all of them (every day's every result, on the reply's curve), 0–1. A keyword one URL holds alone is
 * not listed. Search Console's impressions per (page, query), once imported, are the other source of
 * the same report: the share is then each page's impressions of the query.
 */
export function cannibalisationOf(input: CannibalisationInput): Cannibalisation[] {
  return input.grid.flatMap(({ keyword, byDay }) => {
    const urls = new Map<string, { best_days: number; clicks: number }>();
    let sharedDays = 0;
    let swaps = 0;
    let lastBest: string | null = null;
    for (const row of byDay) {
      const results = row?.site_results ?? [];
      const best = results[0];
      if (!best) continue;
      const distinct = new Set(results.map((r) => r.url));
      if (distinct.size > 1) sharedDays += 1;
      if (lastBest !== null && lastBest !== best.url) swaps += 1;
      lastBest = best.url;
      for (const r of results) {
        const entry = urls.get(r.url) ?? { best_days: 0, clicks: 0 };
        entry.clicks += ctrOn(input.curve, r.position);
        entry.best_days += r === best ? 1 : 0;
        urls.set(r.url, entry);
      }
    }
    if (urls.size < 2) return [];
    const total = [...urls.values()].reduce((sum, u) => sum + u.clicks, 0);
    return [
      {
        keyword: keyword.keyword,
        locale: keyword.locale,
        shared_days: sharedDays,
        swaps,
        urls: [...urls.entries()]
          .map(([url, u]) => ({ url, best_days: u.best_days, share: total > 0 ? roundTo(u.clicks / total, 4) : 0 }))
          .sort((a, b) => b.share - a.share || b.best_days - a.best_days || a.url.localeCompare(b.url))
          .slice(0, URLS_LISTED),
      },
    ];
  });
}
