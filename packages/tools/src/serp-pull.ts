import * as z from 'zod/mini';
import { LIMITS, SerpItem, type SerpRow } from '@cm/contract';
import { utcDay } from '@cm/core';
import { keywordUnique, serpIdentity, sharedId, type Shared, type SharedDatum } from '@cm/store';
import type { ToolContext } from './context';

/*
 * A keyword's SERP for a site, as serp_landscape's list and serp_keyword_refresh take it. The SERP is
 * public data, the same for every site, so each day's answer is kept in the shared cache of public data
 * (docs/api/decisions.md#public-data-paid-once); the site's view of it (its domain and competitors
 * placed, in the sandbox) is made per site and stored only as the site's own row.
 */

/** The site and its competitors, whose positions a SERP pull marks. */
export interface SerpTarget {
  siteDomain: string | null;
  competitors: readonly string[];
}

/** A keyword in a locale whose SERP is wanted. */
interface SerpOf {
  keyword: string;
  locale: string;
}

/** The SERPs pulled are Google's desktop ones (the providers ask for no other device). */
const DEVICE = 'desktop';
const ENDPOINT = 'serp_organic';
const KeptItems = z.array(SerpItem);

/** A keyword's top LIMITS.serpDepth SERP on a day, as the shared cache keys it: nothing of a site in it. */
const datumOf = ({ keyword, locale }: SerpOf, day: string): SharedDatum => ({
  kind: 'serp',
  key: serpIdentity({ locale, device: DEVICE, depth: LIMITS.serpDepth, keyword }),
  day,
});

/** A kept SERP, today's, from the configured provider. */
export type KeptSerp = Shared<SerpItem[]>;

/**
 * Today's SERPs the shared cache has of these keywords from the configured provider (another
 * provider's, after a deployment changed providers, are not this one's), by keywordUnique: batched reads.
 */
export async function keptSerps(ctx: ToolContext, wanted: readonly SerpOf[]): Promise<Map<string, KeptSerp>> {
  const day = utcDay(ctx.now);
  const kept = await ctx.store.shared.getMany(
    wanted.map((w) => datumOf(w, day)),
    KeptItems,
  );
  const found = new Map<string, KeptSerp>();
  for (const w of wanted) {
    const shared = kept.get(sharedId(datumOf(w, day)));
    if (shared && shared.data_source === ctx.keywordData.name) found.set(keywordUnique(w.locale, w.keyword), shared);
  }
  return found;
}

/** A fresh pull of the keyword's public SERP, kept in the shared cache for the day so other sites need not pay for it. */
async function pullPublic(ctx: ToolContext, wanted: SerpOf): Promise<KeptSerp> {
  const items = await ctx.keywordData.serpOrganic(wanted.keyword, wanted.locale, LIMITS.serpDepth, ctx.meter);
  const serp = { value: items, fetched_at: ctx.now.toISOString(), data_source: ctx.keywordData.name };
  await ctx.store.shared.put(datumOf(wanted, utcDay(ctx.now)), serp);
  return serp;
}

/**
 * The keyword's SERP of the top LIMITS.serpDepth organic results, as the site sees it, stored as the
 * site's row: from `kept` (today's from the shared cache: a $0 `cached` ledger line), else pulled fresh.
 */
export async function pullSerp(
  ctx: ToolContext,
  keyword: string,
  locale: string,
  target: SerpTarget,
  kept?: KeptSerp,
): Promise<SerpRow> {
  if (kept) ctx.meter.recordCached({ provider: ctx.keywordData.name, endpoint: ENDPOINT });
  const serp = kept ?? (await pullPublic(ctx, { keyword, locale }));
  const row: SerpRow = {
    keyword,
    locale,
    fetched_at: serp.fetched_at,
    data_source: serp.data_source,
    items: ctx.keywordData.placeTracked(serp.value, keyword, locale, target),
  };
  await ctx.store.serps.put(ctx.siteId, row);
  return row;
}
