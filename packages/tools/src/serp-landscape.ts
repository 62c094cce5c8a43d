import { fieldError, LIMITS, REFRESH_LOCALE, type SerpLandscapeInput, type SerpRow } from '@cm/contract';
import { keywordLocale, landscapeMetrics, normalizeKeyword, topByScore, type ScopeKeyword } from '@cm/core';
import { keywordIdeasPrice, ProviderError, serpPrice } from '@cm/providers';
import { keywordUnique, mapLimit } from '@cm/store';
import { siteOf, type ToolContext } from './context';
import { resolveScope, scopeKeywordOf, type Scope } from './scope';
import { scopeHistory } from './rank-history';
import { siteCtrCurve } from './search-traffic';
import { upsertKeywords } from './keywords';
import { planKeywordResearch, researchKeywords } from './research';
import { CACHED_TODAY, callsOf, freeOf, withPlan, type PlanDeps, type ToolPlan } from './plan';
import { keptSerps, pullSerp, type SerpTarget } from './serp-pull';

/* serp_landscape: a scope's keywords with their metrics and SERPs, and list, analyze and ideas at depth. */

/** SERP pulls of one list call running at once. */
const SERP_CONCURRENCY = 4;
/** Seeds a keyword-ideas call takes at most. */
const IDEA_SEEDS_MAX = 200;

const invalid = (path: string, message: string) => fieldError('body', path, message);

/**
 * What list would fetch: keyword scope its keyword, page scope all, topic top N by score or the given
 * ids (analyze's default N is LIMITS.analyzeKeywords). Ideas are never targets: one named (keyword scope,
 * keyword_ids) is a 400; a page's keywords are committed by the page, and a topic's ideas are not in its scope.
 */
async function listCandidates(ctx: ToolContext, input: SerpLandscapeInput, scope: Scope): Promise<ScopeKeyword[]> {
  const analyze = input.depth === 'analyze';
  const idea = scope.info.type === 'keyword' ? scope.keywords.find((k) => k.is_idea) : undefined;
  if (idea) {
    throw invalid(
      'keyword',
      `"${idea.keyword}" is a keyword idea (is_idea: true); ideas are never list or analyze targets. Commit it first: get_keywords {topic_id, seeds: ["${idea.keyword}"]} attaches it to a topic, which commits it`,
    );
  }
  if (input.keyword_ids) {
    const rows = await ctx.store.rows.getMany(ctx.siteId, 'cm_keywords', input.keyword_ids);
    return input.keyword_ids.map((id, i) => {
      const row = rows.get(id);
      if (!row) throw invalid(`keyword_ids[${i}]`, `no cm_keywords row with id ${id}`);
      if (row.is_idea) throw invalid(`keyword_ids[${i}]`, `keyword ${id} is an idea; ideas are never list targets`);
      return scopeKeywordOf(row);
    });
  }
  const committed = scope.keywords.filter((k) => !k.is_idea);
  if (scope.info.type !== 'topic') return committed;
  return topByScore(committed, input.limit ?? (analyze ? LIMITS.analyzeKeywords : LIMITS.topicListDefault));
}

/**
 * The keywords analyze takes: the spec caps analyze at LIMITS.analyzeKeywords ("capped at 5", whatever
 * `limit` or `keyword_ids` asks), in every paid part: more candidates are cut to the first keyword_ids
 * given, else to the top by score, and only those are listed and researched; the rest are named in the reply.
 */
function analyzeTargets(
  input: SerpLandscapeInput,
  candidates: readonly ScopeKeyword[],
): { listed: ScopeKeyword[]; researched: string[]; over_cap: string[] } {
  const keywords = (k: readonly ScopeKeyword[]) => [...new Set(k.map((row) => row.keyword))];
  const researched = keywords(
    input.keyword_ids ? candidates.slice(0, LIMITS.analyzeKeywords) : topByScore(candidates, LIMITS.analyzeKeywords),
  ).slice(0, LIMITS.analyzeKeywords);
  return {
    listed: candidates.filter((k) => researched.includes(k.keyword)),
    researched,
    over_cap: keywords(candidates).filter((k) => !researched.includes(k)),
  };
}

/** What list and analyze take: the selection they list, and for analyze what it researches and leaves out. */
interface Listing {
  selection: ScopeKeyword[];
  analyzed?: ReturnType<typeof analyzeTargets>;
}

/** The keywords a list or analyze call takes: list's candidates, cut to analyze's cap (analyzeTargets) for analyze. */
async function listSelection(ctx: ToolContext, input: SerpLandscapeInput, scope: Scope): Promise<Listing> {
  const candidates = await listCandidates(ctx, input, scope);
  if (input.depth !== 'analyze') return { selection: candidates };
  const analyzed = analyzeTargets(input, candidates);
  return { selection: analyzed.listed, analyzed };
}

/** What list pulls of the selection: the keywords with no stored SERP in their locale; the rest are skipped. */
function serpPulls(selection: readonly ScopeKeyword[], serps: ReadonlyMap<string, SerpRow>) {
  return {
    skipped: selection.filter((k) => serps.has(keywordUnique(k.locale, k.keyword))),
    wanted: selection.filter((k) => !serps.has(keywordUnique(k.locale, k.keyword))),
  };
}

/**
 * Pulls the SERPs the selection has none of in `serps` (the stored rows), adding each pulled row to
 * it; a failed pull is reported unless every pull failed.
 */
async function listSerps(
  ctx: ToolContext,
  selection: readonly ScopeKeyword[],
  target: SerpTarget,
  serps: Map<string, SerpRow>,
) {
  const { skipped, wanted } = serpPulls(selection, serps);
  // Already fetched today for another site: the shared cache answers (spec §4.3: fetched keywords are skipped).
  const kept = await keptSerps(ctx, wanted);
  let lastError: ProviderError | undefined;
  const outcomes = await mapLimit(wanted, SERP_CONCURRENCY, async (k) => {
    const key = keywordUnique(k.locale, k.keyword);
    try {
      serps.set(key, await pullSerp(ctx, k.keyword, k.locale, target, kept.get(key)));
      return true;
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      lastError = error;
      return false;
    }
  });
  const failed = wanted.filter((_k, i) => !outcomes[i]);
  if (lastError && failed.length === wanted.length) throw lastError;
  return {
    fetched: wanted.filter((_k, i) => outcomes[i]).map((k) => k.keyword),
    skipped: skipped.map((k) => k.keyword),
    failed: failed.map((k) => k.keyword),
  };
}

/** The seeds of a keyword-ideas call: the scope's best keywords by score. */
const ideaSeeds = (scope: Scope): string[] => topByScore(scope.keywords, IDEA_SEEDS_MAX).map((k) => k.keyword);

/** Up to LIMITS.keywordIdeas keyword ideas from the scope's keywords, stored as ideas; committed rows stay committed. */
async function pullIdeas(ctx: ToolContext, scope: Scope, locale: string) {
  const seeds = ideaSeeds(scope);
  if (seeds.length === 0) return [];
  const inScope = new Set(scope.keywords.map((k) => k.keyword));
  const ideas = (await ctx.keywordData.keywordIdeas(seeds, locale, LIMITS.keywordIdeas, ctx.meter))
    .map((idea) => ({ ...idea, keyword: normalizeKeyword(idea.keyword) }))
    .filter((idea) => !inScope.has(idea.keyword))
    .slice(0, LIMITS.keywordIdeas);
  const checkedAt = ctx.now.toISOString();
  const stored = await upsertKeywords(
    ctx,
    ideas.map((idea) => ({
      target: { keyword: idea.keyword, locale },
      fields: {
        volume: idea.volume ?? 0,
        cpc_usd: idea.cpc_usd,
        competition: idea.competition,
        intent: idea.intent,
        checked_at: checkedAt,
        data_source: ctx.keywordData.name,
      },
    })),
    { is_idea: true },
  );
  return stored.sort(
    (a, b) => Number(b.volume ?? 0) - Number(a.volume ?? 0) || String(a.keyword).localeCompare(String(b.keyword)),
  );
}

/**
 * serp_keyword_refresh's rows (REFRESH_LOCALE) of the keywords that have no stored SERP in their own
 * locale: the refresh pulls US/English only, and is meant to fill that gap whatever the site's locale.
 * They only stand in: list still pulls the keyword's own locale, whose SERP is shown first.
 */
async function refreshedSerps(
  ctx: ToolContext,
  keywords: readonly ScopeKeyword[],
  serps: ReadonlyMap<string, SerpRow>,
): Promise<Map<string, SerpRow>> {
  const missing = keywords.filter((k) => k.locale !== REFRESH_LOCALE && !serps.has(keywordUnique(k.locale, k.keyword)));
  if (missing.length === 0) return new Map();
  const rows = await ctx.store.serps.getMany(
    ctx.siteId,
    missing.map((k) => ({ locale: REFRESH_LOCALE, keyword: k.keyword })),
  );
  return new Map(rows.map((row) => [row.keyword, row]));
}

async function serpLandscapeRun(ctx: ToolContext, input: SerpLandscapeInput) {
  // analyze waits for research until then; the list pulls run meanwhile.
  const deadline = Date.now() + input.wait_ms;
  const site = await siteOf(ctx);
  const locale = keywordLocale(null, site.locale);
  // The competitor rows, not only their domains: the share of voice carries each one's stored colour.
  // The site's own CTR curve where it has Search Console days: its estimates say which curve they used.
  const [tracked, scope, ctrCurve] = await Promise.all([
    ctx.store.rows.byField(ctx.siteId, 'cm_competitors', 'active', true),
    resolveScope(ctx, input, locale, { ideas: true }),
    siteCtrCurve(ctx, ctx.now),
  ]);
  const competitors = tracked.map((row) => row.domain);
  const colors = new Map(tracked.flatMap((row) => (row.color ? [[row.domain, row.color] as const] : [])));
  const target = { siteDomain: site.domain, competitors };
  const lists = input.depth !== 'metrics';
  const listing: Listing = lists ? await listSelection(ctx, input, scope) : { selection: [] };
  const { selection, analyzed } = listing;
  // One batched read of the stored SERPs serves both what list skips and the metrics.
  const stored = await ctx.store.serps.getMany(ctx.siteId, [...scope.keywords, ...selection]);
  const serps = new Map(stored.map((row) => [keywordUnique(row.locale, row.keyword), row]));
  const [refreshed, list, research] = await Promise.all([
    refreshedSerps(ctx, scope.keywords, serps),
    lists ? listSerps(ctx, selection, target, serps) : undefined,
    analyzed ? researchKeywords(ctx, analyzed.researched, deadline) : undefined,
  ]);
  const [ideas, history] = await Promise.all([
    input.ideas ? pullIdeas(ctx, scope, locale) : undefined,
    input.history_days === undefined
      ? undefined
      : scopeHistory(
          ctx,
          scope,
          { days: input.history_days, device: input.device },
          { siteDomain: site.domain, competitors, colors, ctrCurve },
        ),
  ]);
  return {
    data_source: ctx.keywordData.name,
    scope: scope.info,
    depth: input.depth,
    ...landscapeMetrics({
      keywords: scope.keywords,
      // Its own locale's SERP first (list may just have pulled it), else the refreshed one, labelled with its locale.
      serpOf: (k) => serps.get(keywordUnique(k.locale, k.keyword)) ?? refreshed.get(k.keyword),
      siteDomain: site.domain,
      competitors,
      colors,
      ctrCurve,
    }),
    ...(ideas ? { ideas } : {}),
    ...(history ? { history } : {}),
    ...(list ? { list } : {}),
    ...(research && analyzed
      ? { research: { ...research, researched: analyzed.researched, over_cap: analyzed.over_cap } }
      : {}),
  };
}

/**
 * serp_landscape with estimate: true, from the run's own decisions: the scope and list selection, the
 * SERPs list pulls (those not stored), analyze's research (keywords neither researched in the last week
 * nor in process), and the ideas call.
 */
async function planSerpLandscape(ctx: ToolContext, input: SerpLandscapeInput, deps: PlanDeps): Promise<ToolPlan> {
  const site = await siteOf(ctx);
  const locale = keywordLocale(null, site.locale);
  const scope = await resolveScope(ctx, input, locale, { ideas: true });
  const provider = ctx.keywordData.name;
  const plan: ToolPlan = { data_source: provider, calls: [], free: [], notes: [] };
  if (input.depth !== 'metrics') {
    const { selection, analyzed } = await listSelection(ctx, input, scope);
    const stored = await ctx.store.serps.getMany(ctx.siteId, selection);
    const { skipped, wanted } = serpPulls(
      selection,
      new Map(stored.map((row) => [keywordUnique(row.locale, row.keyword), row])),
    );
    const kept = await keptSerps(ctx, wanted);
    const isKept = (k: ScopeKeyword) => kept.has(keywordUnique(k.locale, k.keyword));
    const pulled = wanted.filter((k) => !isKept(k));
    plan.calls.push(...callsOf(provider, 'serp_organic', pulled.length, serpPrice(LIMITS.serpDepth)));
    plan.free.push(
      ...freeOf(
        'serp',
        skipped.map((k) => k.keyword),
        'a SERP is stored: list skips it (serp_keyword_refresh pulls one fresh)',
      ),
      ...freeOf(
        'serp',
        wanted.filter(isKept).map((k) => k.keyword),
        CACHED_TODAY,
      ),
    );
    if (analyzed) {
      const { researched, over_cap } = analyzed;
      const { done, inProcess, shared, toQueue } = await planKeywordResearch(ctx, researched);
      plan.calls.push(...callsOf(ctx.researchSource, 'research_web', toQueue.length, deps.researchUsd('web')));
      plan.free.push(
        ...freeOf('research', done, 'researched in the last 7 days: answered from storage'),
        ...freeOf('research', inProcess, 'a queued job researches it already: the call collects it'),
        ...freeOf('research', shared, 'researched for an identical request in the last day: the shared cache answers'),
      );
      if (over_cap.length > 0) plan.notes.push(`over the research cap, not researched: ${over_cap.join(', ')}`);
    }
  }
  if (input.ideas && ideaSeeds(scope).length > 0)
    plan.calls.push(...callsOf(provider, 'keyword_ideas', 1, keywordIdeasPrice(LIMITS.keywordIdeas)));
  if (input.history_days !== undefined)
    plan.notes.push(`history of the last ${input.history_days} days: stored rank rows, no provider call`);
  if (plan.calls.length === 0) plan.notes.push('answered from stored keywords and SERPs: no provider call');
  return plan;
}

export const serpLandscape = /* @__PURE__ */ withPlan(serpLandscapeRun, planSerpLandscape);
