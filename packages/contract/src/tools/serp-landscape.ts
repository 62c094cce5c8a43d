import * as z from 'zod/mini';
import { named } from '../common';
import { Intent, Keyword, REFRESH_LOCALE, RowId } from '../cm-tables';
import { JobError } from '../research';
import { LIMITS } from '../limits';
import { EstimateFields, withEstimate } from '../estimate';
import { CtrCurveName, DEVICES, RankHistory, Visibility } from '../ranks';
import { KeywordRowSchema } from './keyword-row';
import { ResearchFindings, ToolMeta } from './shared';
import { defineTool } from './declaration';

export const LANDSCAPE_DEPTHS = ['metrics', 'list', 'analyze'] as const;

export const SerpLandscapeInput = z
  .object({
    keyword: z.optional(Keyword),
    topic_id: z.optional(RowId),
    page_id: z.optional(RowId),
    depth: z._default(z.enum(LANDSCAPE_DEPTHS), 'metrics'),
    ideas: z
      ._default(z.boolean(), false)
      .check(z.meta({ description: `metrics only: also pull up to ${LIMITS.keywordIdeas} keyword ideas` })),
    limit: z.optional(z.int().check(z.minimum(1), z.maximum(LIMITS.listKeywordsMax))).check(
      z.meta({
        description: `topic list/analyze: top N by score (default ${LIMITS.topicListDefault}, analyze ${LIMITS.analyzeKeywords})`,
      }),
    ),
    keyword_ids: z
      .optional(z.array(RowId).check(z.minLength(1), z.maxLength(LIMITS.listKeywordsMax)))
      .check(z.meta({ description: 'topic list/analyze: these committed keywords' })),
    wait_ms: z
      ._default(z.int().check(z.minimum(0), z.maximum(LIMITS.waitMsMax)), LIMITS.waitMsMax)
      .check(z.meta({ description: 'analyze: how long to wait for research before answering partial' })),
    history_days: z
      .optional(z.int().check(z.minimum(1), z.maximum(LIMITS.historyDaysMax)))
      .check(z.meta({ description: 'Also the rank history of N days (stored, free)' })),
    device: z
      .optional(z.enum(DEVICES))
      .check(z.meta({ description: "history_days: checks on it (default: the scope's tracking's, else desktop)" })),
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      const scopes = [v.keyword, v.topic_id, v.page_id].filter((s) => s !== undefined).length;
      if (scopes !== 1)
        ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of keyword, topic_id, page_id' });
      if (v.device !== undefined && v.history_days === undefined)
        ctx.addIssue({ code: 'custom', path: ['device'], message: 'applies with history_days only' });
      if (v.ideas && v.depth !== 'metrics')
        ctx.addIssue({ code: 'custom', path: ['ideas'], message: 'ideas applies to depth metrics only' });
      for (const field of ['limit', 'keyword_ids'] as const) {
        if (v[field] === undefined) continue;
        if (v.topic_id === undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'applies to topic scope only' });
        else if (v.depth === 'metrics')
          ctx.addIssue({ code: 'custom', path: [field], message: 'applies to depth list or analyze only' });
      }
    }),
  );
export type SerpLandscapeInput = z.output<typeof SerpLandscapeInput>;

export const SerpSummary = named(
  z.object({
    locale: z.string().check(
      z.meta({
        description: `The keyword's own, else ${REFRESH_LOCALE} (serp_keyword_refresh's) when it has no SERP of its own`,
      }),
    ),
    fetched_at: z.string(),
    data_source: z.string(),
    site_position: z.nullable(z.int()),
    competitor_positions: z.array(z.object({ domain: z.string(), position: z.int() })),
    top_domains: z
      .array(z.string())
      .check(z.meta({ description: `Domains of the top ${LIMITS.serpTopDomains}, best first` })),
    ai_overview: z.optional(
      z
        .object({
          shown: z.boolean(),
          site_url: z.nullable(z.string()),
          competitors_cited: z.array(z.string()),
        })
        .check(
          z.meta({
            description:
              "The SERP's AI Overview, when a rank check recorded it: the site's cited URL, the competitors it cites",
          }),
        ),
    ),
  }),
  { id: 'SerpSummary' },
);

export const LandscapeKeyword = z.object({
  keyword: z.string(),
  keyword_id: z.nullable(z.int()),
  locale: z.string(),
  volume: z.nullable(z.int()),
  cpc_usd: z.nullable(z.number()),
  competition: z.nullable(z.number()),
  intent: z.nullable(Intent),
  is_idea: z
    .boolean()
    .check(z.meta({ description: 'A keyword known only as an idea: shown here, never a list or analyze target' })),
  score: z.number(),
  serp: z.nullable(SerpSummary),
});

export const Coverage = z.object({
  keywords: z.int(),
  with_volume: z.int(),
  with_serp: z.int(),
  volume_pct: z.number(),
  serp_pct: z.number(),
});

export const SovDomain = z.object({
  domain: z.string(),
  sov: z.number().check(z.meta({ description: 'Share of voice 0–1' })),
  ...Visibility,
  keywords_ranked: z.int(),
  ai_sov: z
    .nullable(z.number())
    .check(z.meta({ description: 'AI Overview share of voice 0–1; null: no SERP recorded its AI Overview' })),
  ai_cited: z.int().check(z.meta({ description: 'Keywords whose AI Overview cites it' })),
  is_site: z.boolean(),
  is_competitor: z.boolean(),
  color: z.optional(z.string()).check(z.meta({ description: "A tracked competitor's stored chart color" })),
});

export const SerpLandscapeResult = z.object({
  ...ToolMeta,
  scope: z.object({ type: z.enum(['keyword', 'topic', 'page']), id: z.nullable(z.int()), name: z.string() }),
  depth: z.enum(LANDSCAPE_DEPTHS),
  coverage: Coverage,
  keywords: z.array(LandscapeKeyword),
  sov: z.object({
    domains: z.array(SovDomain),
    ctr_curve: CtrCurveName,
    verdict: z.nullable(z.enum(['leads', 'contends', 'trails'])),
    verdict_reason: z.nullable(z.string()),
  }),
  ideas: z.optional(z.array(KeywordRowSchema)),
  list: z.optional(
    z.object({
      fetched: z.array(z.string()),
      skipped: z.array(z.string()),
      failed: z.array(z.string()),
    }),
  ),
  research: z
    .optional(
      z.object({
        status: z
          .enum(['complete', 'partial'])
          .check(z.meta({ description: 'partial: call again with the same parameters to collect the rest' })),
        facts_by_keyword: z.record(
          z.string(),
          z.object({ ...ResearchFindings, data_source: z.string(), created_at: z.string() }),
        ),
        in_process: z.array(z.string()).check(z.meta({ description: 'Keywords whose research is queued or running' })),
        failed: z.array(z.object({ keyword: z.string(), error: JobError })),
        researched: z
          .array(z.string())
          .check(z.meta({ description: `Researched here (at most ${LIMITS.analyzeKeywords})` })),
        over_cap: z.array(z.string()).check(
          z.meta({
            description: `Over the cap of ${LIMITS.analyzeKeywords}: neither listed nor researched`,
          }),
        ),
      }),
    )
    .check(z.meta({ description: 'analyze only' })),
  history: z.optional(RankHistory),
});

export const SERP_LANDSCAPE = defineTool({
  name: 'serp_landscape',
  title: 'Keyword and competitor landscape',
  description: `Keyword and competitor intelligence for exactly one of keyword, topic_id, page_id. depth metrics (default, read-only): demand and stored SERP competition per committed keyword, a coverage header and share of voice per domain, with a verdict suppressed below ${LIMITS.verdictMinVolumeCoverage * 100}% volume coverage; ideas: true also pulls up to ${LIMITS.keywordIdeas} keyword ideas. depth list: also fetches current SERP positions (keyword 1, page all, topic top ${LIMITS.topicListDefault} by score, or limit / keyword_ids); keywords already fetched are skipped. depth analyze: list plus web research (facts and opinions), for at most ${LIMITS.analyzeKeywords} keywords in all (top ${LIMITS.analyzeKeywords} by score, or the first ${LIMITS.analyzeKeywords} keyword_ids; the rest, neither listed nor researched, in research.over_cap); research takes about ${LIMITS.analyzeSecondsMin} to ${LIMITS.analyzeSecondsMax} s, so the call waits up to wait_ms (max ${LIMITS.waitMsMax}) and answers research.status partial with the keywords still in process: call again with the same parameters to collect them (researched keywords answer at once). Ideas (is_idea) are never list or analyze targets.`,
  input: SerpLandscapeInput,
  result: withEstimate(SerpLandscapeResult),
  mcp: { note: 'analyze is slow: a partial answer is collected by calling again with the same parameters.' },
  // analyze queues its keywords' research.
  grants: { table: 'readWrite', sendsTo: ['research', 'budget-warning'], secrets: ['dataforseo'] },
});
