import { keywordSeeds, type ResearchInput } from '@cm/contract';
import { rowOrNotFound, siteOf, type ToolContext } from '../context';
import { upsertKeywords } from '../keywords';
import { keywordMetricsPrice } from '@cm/providers';
import { callsOf, type ToolPlan } from '../plan';

/* research's keywords mode: answered at once, with no job. */

/** What keywords mode pulls: the seeds' metrics in the site's locale (one call), after the page it links to is found. */
export async function keywordResearchPlan(ctx: ToolContext, input: ResearchInput) {
  const site = await siteOf(ctx);
  if (input.page_id) await rowOrNotFound(ctx, 'cm_pages', input.page_id);
  return { site, seeds: keywordSeeds(input.seed) };
}

/** keywords mode with estimate: true: one metrics call of the seeds (always pulled fresh). */
export async function estimateKeywordResearch(ctx: ToolContext, input: ResearchInput): Promise<ToolPlan> {
  const { seeds } = await keywordResearchPlan(ctx, input);
  const provider = ctx.keywordData.name;
  return {
    data_source: provider,
    calls: callsOf(provider, 'keyword_metrics', 1, keywordMetricsPrice(seeds.length)),
    free: [],
    notes: [],
  };
}

/** keywords mode: inline metrics for the seeds, stored as ideas linked to the page. */
export async function keywordResearch(ctx: ToolContext, input: ResearchInput) {
  const { site, seeds } = await keywordResearchPlan(ctx, input);
  const metrics = await ctx.keywordData.keywordMetrics(seeds, site.locale, ctx.meter);
  const keywords = seeds.map((keyword) => {
    const m = metrics.get(keyword);
    return {
      keyword,
      volume: m?.volume ?? 0,
      cpc_usd: m?.cpc_usd ?? null,
      competition: m?.competition ?? null,
      intent: m?.intent ?? null,
    };
  });
  const checkedAt = ctx.now.toISOString();
  await upsertKeywords(
    ctx,
    keywords.map(({ keyword, ...figures }) => ({
      target: { keyword, locale: site.locale },
      fields: {
        ...figures,
        checked_at: checkedAt,
        data_source: ctx.keywordData.name,
        ...(input.page_id ? { page_id: input.page_id } : {}),
      },
    })),
    { is_idea: true },
  );
  return { data_source: ctx.keywordData.name, mode: 'keywords' as const, keywords };
}
