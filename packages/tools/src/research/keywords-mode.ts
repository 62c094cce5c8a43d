import { keywordSeeds, normalizeKeyword, type ResearchInput } from '@cm/contract';
import { pageKeywords, rowOrNotFound, siteOf, type ToolContext } from '../context';
import { upsertKeywords } from '../keywords';
import { metricsOf, planMetrics, uniqueOf } from '../keyword-metrics';
import type { ToolPlan } from '../plan';

/* research's keywords mode: answered at once, with no job. */

/**
 * What keywords mode pulls: the seeds' metrics in the site's locale (one call), after the page it links
 * to is found; and the keywords that page names (its primary and secondary ones), which stay committed.
 */
export async function decideKeywordResearch(ctx: ToolContext, input: ResearchInput) {
  const site = await siteOf(ctx);
  const page = input.page_id ? await rowOrNotFound(ctx, 'cm_pages', input.page_id) : null;
  return {
    site,
    seeds: keywordSeeds(input.seed),
    pageNamed: new Set(page ? pageKeywords(page).map(normalizeKeyword) : []),
  };
}

/** The seeds as metrics targets, in the site's locale. */
const targetsOf = (seeds: readonly string[], locale: string) => seeds.map((keyword) => ({ keyword, locale }));

/** keywords mode with estimate: true: one metrics call of the seeds the shared cache has no answer of today. */
export async function planKeywordResearch(ctx: ToolContext, input: ResearchInput): Promise<ToolPlan> {
  const { site, seeds } = await decideKeywordResearch(ctx, input);
  return { data_source: ctx.keywordData.name, ...(await planMetrics(ctx, targetsOf(seeds, site.locale))), notes: [] };
}

/**
 * keywords mode: inline metrics for the seeds, stored linked to the page. Only new candidates are ideas:
 * a seed the page names is committed (an idea row of it too), and a committed row stays committed.
 */
export async function keywordResearch(ctx: ToolContext, input: ResearchInput) {
  const { site, seeds, pageNamed } = await decideKeywordResearch(ctx, input);
  // The spec orders keywords mode no fresh pull (get_keywords it does): the day's answers of any site serve.
  const metrics = await metricsOf(ctx, targetsOf(seeds, site.locale));
  const keywords = seeds.map((keyword) => {
    const m = metrics.get(uniqueOf({ keyword, locale: site.locale }));
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
        ...(pageNamed.has(keyword) ? { is_idea: false } : {}),
      },
    })),
    { is_idea: true },
  );
  return { data_source: ctx.keywordData.name, mode: 'keywords' as const, keywords };
}
