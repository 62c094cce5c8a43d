import * as z from 'zod/mini';
import { KeywordMetrics } from '@cm/contract';
import { utcDay } from '@cm/core';
import { keywordMetricsPrice } from '@cm/providers';
import { keywordUnique, sharedId, type SharedDatum } from '@cm/store';
import type { ToolContext } from './context';
import { CACHED_TODAY, callsOf, freeOf, type ToolPlan } from './plan';

/*
 * A keyword's metrics in a locale: public data, the same for every site, so each day's answer is kept in
 * the shared cache of public data (docs/api/decisions.md#public-data-paid-once). A pull keeps what it
 * got; a reader that need not pull fresh takes the day's answer from the cache first.
 */

/** Keywords per metrics call: the most a provider task takes. */
const METRICS_BATCH = 1000;
const ENDPOINT = 'keyword_metrics';

export interface Target {
  keyword: string;
  locale: string;
}

/** The unique value of a keyword row or target: its locale and keyword. */
export const uniqueOf = (row: Target): string => keywordUnique(row.locale, row.keyword);

/** A target's metrics on a day, as the shared cache keys them: nothing of a site in it. */
const datumOf = (target: Target, day: string): SharedDatum => ({
  kind: 'keyword-metrics',
  key: `${target.locale}#${target.keyword}`,
  day,
});

/** A kept answer: the keyword's metrics, or null when the data had nothing for it. */
const KeptMetrics = z.nullable(KeywordMetrics);

/** The metrics calls of these targets: one per locale and batch of METRICS_BATCH keywords. */
function metricsBatches(targets: Iterable<Target>): Array<{ locale: string; keywords: string[] }> {
  const byLocale = new Map<string, string[]>();
  for (const t of targets) byLocale.set(t.locale, [...(byLocale.get(t.locale) ?? []), t.keyword]);
  return [...byLocale].flatMap(([locale, keywords]) =>
    Array.from({ length: Math.ceil(keywords.length / METRICS_BATCH) }, (_v, i) => ({
      locale,
      keywords: keywords.slice(i * METRICS_BATCH, (i + 1) * METRICS_BATCH),
    })),
  );
}

/** The keyword metrics calls of these keywords (by batch size), at list prices. */
export function metricsCalls(provider: string, targets: Iterable<Target>) {
  const sizes = new Map<number, number>();
  for (const { keywords } of metricsBatches(targets)) sizes.set(keywords.length, (sizes.get(keywords.length) ?? 0) + 1);
  return [...sizes].flatMap(([size, count]) => callsOf(provider, ENDPOINT, count, keywordMetricsPrice(size)));
}

/**
 * Fresh metrics of each target from the provider, one call per locale and batch (a missing key means no
 * data), each answer then kept in the shared cache for the day, so other sites need not pay for it.
 */
export async function pullMetrics(ctx: ToolContext, targets: readonly Target[]): Promise<Map<string, KeywordMetrics>> {
  const found = new Map<string, KeywordMetrics>();
  const fetchedAt = ctx.now.toISOString();
  const day = utcDay(ctx.now);
  for (const { locale, keywords } of metricsBatches(targets)) {
    const metrics = await ctx.keywordData.keywordMetrics(keywords, locale, ctx.meter);
    for (const [keyword, m] of metrics) found.set(keywordUnique(locale, keyword), m);
    await ctx.store.shared.putMany(
      keywords.map((keyword) => ({
        datum: datumOf({ keyword, locale }, day),
        shared: { value: metrics.get(keyword) ?? null, fetched_at: fetchedAt, data_source: ctx.keywordData.name },
      })),
    );
  }
  return found;
}

/** Today's answers the shared cache has of these targets from the configured provider, by unique value (null: no data). */
async function keptMetrics(ctx: ToolContext, targets: readonly Target[]): Promise<Map<string, KeywordMetrics | null>> {
  const day = utcDay(ctx.now);
  const kept = await ctx.store.shared.getMany(
    targets.map((t) => datumOf(t, day)),
    KeptMetrics,
  );
  const answers = new Map<string, KeywordMetrics | null>();
  for (const target of targets) {
    const shared = kept.get(sharedId(datumOf(target, day)));
    // Another provider's answer (a deployment that changed providers) is not this one's.
    if (shared && shared.data_source === ctx.keywordData.name) answers.set(uniqueOf(target), shared.value);
  }
  return answers;
}

/** Which targets today's shared answers cover, and which must be pulled. */
async function splitByCache(ctx: ToolContext, targets: readonly Target[]) {
  const kept = await keptMetrics(ctx, targets);
  return {
    kept,
    cached: targets.filter((t) => kept.has(uniqueOf(t))),
    pulled: targets.filter((t) => !kept.has(uniqueOf(t))),
  };
}

/**
 * Metrics of each target where a fresh pull is not required: today's answer from the shared cache where
 * it has one (a $0 `cached` ledger line per call it stands in for), the rest pulled (pullMetrics).
 */
export async function metricsOf(ctx: ToolContext, targets: readonly Target[]): Promise<Map<string, KeywordMetrics>> {
  const { kept, cached, pulled } = await splitByCache(ctx, targets);
  metricsBatches(cached).forEach(() => ctx.meter.recordCached({ provider: ctx.keywordData.name, endpoint: ENDPOINT }));
  const found = await pullMetrics(ctx, pulled);
  for (const [key, metrics] of kept) if (metrics) found.set(key, metrics);
  return found;
}

/** metricsOf's plan: the calls of the targets the cache has no answer of today, and those it answers free. */
export async function planMetrics(
  ctx: ToolContext,
  targets: readonly Target[],
): Promise<Pick<ToolPlan, 'calls' | 'free'>> {
  const { cached, pulled } = await splitByCache(ctx, targets);
  return {
    calls: metricsCalls(ctx.keywordData.name, pulled),
    free: freeOf(
      'keywords',
      cached.map((t) => t.keyword),
      CACHED_TODAY,
    ),
  };
}
