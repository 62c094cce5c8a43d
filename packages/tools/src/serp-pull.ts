import { LIMITS, type SerpRow } from '@cm/contract';
import type { ToolContext } from './context';

/* One fresh SERP pull: what serp_landscape's list and serp_keyword_refresh both make. */

/** The site and its competitors, whose positions a SERP pull marks. */
export interface SerpTarget {
  siteDomain: string | null;
  competitors: readonly string[];
}

/** One fresh SERP pull of the top LIMITS.serpDepth organic results, stored as the keyword's row. */
export async function pullSerp(
  ctx: ToolContext,
  keyword: string,
  locale: string,
  target: SerpTarget,
): Promise<SerpRow> {
  const answer = await ctx.keywordData.serpOrganic(keyword, locale, LIMITS.serpDepth, ctx.meter);
  const items = ctx.keywordData.placeTracked(answer, keyword, locale, target);
  const row: SerpRow = { keyword, locale, fetched_at: ctx.now.toISOString(), data_source: ctx.keywordData.name, items };
  await ctx.store.serps.put(ctx.siteId, row);
  return row;
}
