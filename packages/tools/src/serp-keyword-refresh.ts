import { ApiError, LIMITS, REFRESH_LOCALE, type SerpKeywordRefreshInput, type SerpRow } from '@cm/contract';
import { nextUtcMidnight, normalizeKeyword, untrackedCompetitors, utcDay } from '@cm/core';
import { ProviderError, serpPrice } from '@cm/providers';
import { competitorDomains, siteOf, type ToolContext } from './context';
import { callsOf, withPlan, type ToolPlan } from './plan';
import { pullSerp } from './serp-pull';

/* serp_keyword_refresh: one fresh SERP pull of a keyword, in REFRESH_LOCALE, under a daily quota per site. */

const REFRESH_QUOTA = 'serp_keyword_refresh';
/** Quota counters outlive their day by this long, then TTL tidies them away. */
const QUOTA_KEEP_SECONDS = 2 * 86_400;

async function serpKeywordRefreshRun(ctx: ToolContext, input: SerpKeywordRefreshInput) {
  const keyword = normalizeKeyword(input.keyword);
  const [site, competitors] = await Promise.all([siteOf(ctx), competitorDomains(ctx)]);
  const day = utcDay(ctx.now);
  const limit = LIMITS.refreshesPerDay;
  const resetsAt = nextUtcMidnight(ctx.now);
  const quota = await ctx.store.quotas.take(
    ctx.siteId,
    REFRESH_QUOTA,
    day,
    limit,
    Math.floor(ctx.now.getTime() / 1000) + QUOTA_KEEP_SECONDS,
  );
  ctx.measure('refresh_quota_used', quota.used);
  if (!quota.taken) {
    throw new ApiError(
      'quota_exceeded',
      `serp_keyword_refresh is limited to ${limit} per site per UTC day; it resets at ${resetsAt}`,
      {
        limit,
        used: quota.used,
        resets_at: resetsAt,
      },
    );
  }
  let row: SerpRow;
  try {
    row = await pullSerp(ctx, keyword, REFRESH_LOCALE, { siteDomain: site.domain, competitors });
  } catch (error) {
    // The unit is given back only when the provider call failed; a stored result keeps it spent.
    if (error instanceof ProviderError) await ctx.store.quotas.giveBack(ctx.siteId, REFRESH_QUOTA, day);
    throw error;
  }
  return {
    data_source: ctx.keywordData.name,
    row,
    untracked_competitors: untrackedCompetitors(row.items, site.domain, competitors),
    quota: { limit, used: quota.used, resets_at: resetsAt },
  };
}

/** serp_keyword_refresh with estimate: true: one SERP pull, always fresh, under the daily quota (read, not taken). */
async function planSerpKeywordRefresh(ctx: ToolContext, _input: SerpKeywordRefreshInput): Promise<ToolPlan> {
  const provider = ctx.keywordData.name;
  const used = await ctx.store.quotas.used(ctx.siteId, REFRESH_QUOTA, utcDay(ctx.now));
  const left = Math.max(0, LIMITS.refreshesPerDay - used);
  return {
    data_source: provider,
    calls: left > 0 ? callsOf(provider, 'serp_organic', 1, serpPrice(LIMITS.serpDepth)) : [],
    free: [],
    notes: [
      left > 0
        ? `${left} of ${LIMITS.refreshesPerDay} refreshes left today`
        : `no refresh left today: the call would be refused 429 quota_exceeded until ${nextUtcMidnight(ctx.now)}`,
    ],
  };
}

export const serpKeywordRefresh = /* @__PURE__ */ withPlan(serpKeywordRefreshRun, planSerpKeywordRefresh);
