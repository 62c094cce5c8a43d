import * as z from 'zod/mini';
import { named } from './common';
import {
  HexColor,
  Intent,
  Keyword,
  REFRESH_LOCALE,
  RowId,
  STORED_ROW_SHAPES,
  StoredNumber,
  TableName,
} from './cm-tables';
import { Finding, JobError, JobView, KEYWORD_SEEDS, RecallInput, ResearchInput, ResearchSource } from './research';
import { TOOL_NAMES, type ToolName } from './tool-heads';
import { LIMITS } from './limits';
import { ToolBudget } from './budget';
import { EstimateFields, MonitoringCost, withEstimate } from './estimate';
import { RankHistory, TrackRankingsFields, TrackRankingsInput } from './ranks';

/* The research tools (spec §4.3, docs/api.md#research-tools): inputs, results and the registry. */

const ScalarValue = z.union([z.string(), StoredNumber, z.boolean(), z.null()]);

/**
 * A count the spec types as "number" (serp_backlinks' trend_months and limit): agents send fractions
 * and numeric strings, so both are taken, rounded down, then held to [min, max]. The JSON Schema says
 * so: a number or a numeric string, with the bounds.
 */
const count = (min: number, max: number) =>
  z
    .pipe(
      z.pipe(
        z.union(
          [z.number(), z.string().check(z.trim(), z.regex(/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/, 'must be a number'))],
          { error: 'must be a number' },
        ),
        z.transform((v) => Math.floor(Number(v))),
      ),
      z.int().check(z.minimum(min), z.maximum(max)),
    )
    .check(z.meta({ minimum: min, maximum: max }));

export const DbSelectInput = z.object({
  table: TableName,
  where: z
    .optional(z.record(z.string(), ScalarValue))
    .check(z.meta({ description: 'Equality on row fields, all must hold' })),
  limit: z._default(z.int().check(z.minimum(1), z.maximum(LIMITS.dbSelectMax)), LIMITS.dbSelectDefault),
  cursor: z.optional(z.string().check(z.minLength(1))),
});
export type DbSelectInput = z.output<typeof DbSelectInput>;

export const DbInsertInput = z.object({
  table: TableName,
  row: z
    .record(z.string(), z.unknown())
    .check(z.meta({ description: "The row's fields, as the table's schema in docs/api.md#tables has them" })),
});
export type DbInsertInput = z.output<typeof DbInsertInput>;

export const DbDeleteInput = z.object({ table: TableName, id: RowId });
export type DbDeleteInput = z.output<typeof DbDeleteInput>;

export const GetKeywordsInput = z
  .object({
    seeds: z.optional(z.array(z.string()).check(z.minLength(1), z.maxLength(LIMITS.seedsMax))),
    topic_id: z
      .optional(RowId)
      .check(z.meta({ description: "Pull for the topic's keywords; seeds are attached to it" })),
    keyword_id: z
      .optional(RowId)
      .check(z.meta({ description: 'Refresh one cm_keywords row; locks the locale to that row' })),
    ...EstimateFields,
  })
  .check(
    z.refine((v) => v.seeds !== undefined || v.topic_id !== undefined || v.keyword_id !== undefined, {
      message: 'give seeds, topic_id or keyword_id',
    }),
  );
export type GetKeywordsInput = z.output<typeof GetKeywordsInput>;

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
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      const scopes = [v.keyword, v.topic_id, v.page_id].filter((s) => s !== undefined).length;
      if (scopes !== 1)
        ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of keyword, topic_id, page_id' });
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

export const SerpKeywordRefreshInput = z.object({ keyword: Keyword, ...EstimateFields });
export type SerpKeywordRefreshInput = z.output<typeof SerpKeywordRefreshInput>;

export const AddCompetitorInput = z.object({
  domain: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(300),
      z.meta({ description: 'A domain or URL; scheme, www., port, path and query are stripped' }),
    ),
  display_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  color: z.optional(HexColor).check(z.meta({ description: 'Chart color "#rrggbb" or "#rgb"' })),
  ...EstimateFields,
});
export type AddCompetitorInput = z.output<typeof AddCompetitorInput>;

export const BACKLINK_DEPTHS = ['overview', 'links'] as const;

export const SerpBacklinksInput = z
  .object({
    scope: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(300)), 'all').check(
      z.meta({
        description: 'all (the site and its tracked competitors), site, or any domain (looked up, never tracked)',
      }),
    ),
    depth: z._default(z.enum(BACKLINK_DEPTHS), 'overview'),
    // prefault, so the JSON Schema shows the default; null is taken as left out (the tool applies the default).
    trend_months: z.prefault(z.nullish(count(1, LIMITS.trendMonthsMax)), LIMITS.trendMonthsDefault),
    limit: z
      .nullish(count(1, LIMITS.linksMax))
      .check(z.meta({ description: `depth links: linking pages (default ${LIMITS.linksDefault})` })),
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.limit !== undefined && v.limit !== null && v.depth !== 'links')
        ctx.addIssue({ code: 'custom', path: ['limit'], message: 'applies to depth links only' });
      if (v.depth === 'links' && v.scope === 'all')
        ctx.addIssue({
          code: 'custom',
          path: ['scope'],
          message: 'depth links takes one domain: site or a domain name',
        });
    }),
  );
export type SerpBacklinksInput = z.output<typeof SerpBacklinksInput>;

/* Results. Every result carries where its data came from and what the call cost. */

const ToolMeta = {
  data_source: z
    .string()
    .check(z.meta({ description: '"sandbox", the real provider\'s name, or "database" for stored rows' })),
  cost_usd: z.number().check(z.meta({ description: 'What the paid provider calls of this request cost' })),
  cached: z.boolean().check(z.meta({ description: 'true when stored data answered and no provider was called' })),
  budget: z
    .optional(ToolBudget)
    .check(z.meta({ description: 'Paid results: what the tightest budget window has left' })),
  simulated: z.optional(z.literal(true)).check(z.meta({ description: 'cost_usd is sandbox list prices, not billed' })),
};
/** The fields every tool result has of its run (what it cost, where from): MCP describes them once, not per tool. */
export const TOOL_META_FIELDS: readonly string[] = Object.keys(ToolMeta);

const Row = z.looseObject({ id: z.int(), created_at: z.string(), updated_at: z.string() });

export const KeywordRowSchema = named(z.object(STORED_ROW_SHAPES.cm_keywords), { id: 'KeywordRow' });

export const DbSelectResult = z.object({
  ...ToolMeta,
  table: TableName,
  rows: z.array(Row),
  next_cursor: z.nullable(z.string()),
});
export const DbInsertResult = z.object({ ...ToolMeta, table: TableName, row: Row, warnings: z.array(z.string()) });
export const DbDeleteResult = z.object({
  ...ToolMeta,
  table: TableName,
  id: z.int(),
  deleted: z.literal(true),
  cascaded: z.record(z.string(), z.int()).check(z.meta({ description: 'Rows deleted with it, per table' })),
});

export const GetKeywordsResult = z.object({
  ...ToolMeta,
  locale: z.string(),
  keywords: z.array(KeywordRowSchema),
  no_data: z.array(z.string()).check(z.meta({ description: 'Seeds the data has nothing for' })),
  rejected_seeds: z
    .array(z.object({ seed: z.string(), reason: z.string() }))
    .check(z.meta({ description: 'Seeds that are no keyword, with why' })),
  topic_id: z.nullable(z.int()),
  attached: z.int().check(z.meta({ description: 'Keywords newly attached to the topic' })),
});

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
  keywords_ranked: z.int(),
  is_site: z.boolean(),
  is_competitor: z.boolean(),
  color: z.optional(z.string()).check(z.meta({ description: "A tracked competitor's stored chart color" })),
});

const ResearchFindings = {
  research_id: z.string(),
  facts: z.array(Finding),
  opinions: z.array(Finding),
  sources: z.array(ResearchSource),
};

export const SerpLandscapeResult = z.object({
  ...ToolMeta,
  scope: z.object({ type: z.enum(['keyword', 'topic', 'page']), id: z.nullable(z.int()), name: z.string() }),
  depth: z.enum(LANDSCAPE_DEPTHS),
  coverage: Coverage,
  keywords: z.array(LandscapeKeyword),
  sov: z.object({
    domains: z.array(SovDomain),
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

export const SerpKeywordRefreshResult = z.object({
  ...ToolMeta,
  row: z.object({
    keyword: z.string(),
    locale: z.string(),
    fetched_at: z.string(),
    data_source: z.string(),
    items: z.array(z.object({ position: z.int(), domain: z.string(), url: z.string(), title: z.string() })),
  }),
  untracked_competitors: z
    .array(z.string())
    .check(z.meta({ description: `Top-${LIMITS.untrackedCompetitorPositions} domains neither tracked nor the site` })),
  quota: z.object({ limit: z.int(), used: z.int(), resets_at: z.string() }),
});

/** A web, reddit or url call that found the same query in process and answers with that job instead of a job of its own. */
const Joined = z.optional(z.literal(true)).check(
  z.meta({
    description: 'true: the call joined a job already researching the same query (mode, seed, question), at no cost',
  }),
);

export const ResearchResult = z.union([
  z.object({
    ...ToolMeta,
    mode: z.literal('keywords'),
    keywords: z.array(
      z.object({
        keyword: z.string(),
        volume: z.int(),
        cpc_usd: z.nullable(z.number()),
        competition: z.nullable(z.number()),
        intent: z.nullable(Intent),
      }),
    ),
  }),
  z.object({
    ...ToolMeta,
    job_id: z.nullable(z.string()),
    status: z.literal('succeeded'),
    ...ResearchFindings,
    joined: Joined,
  }),
  z.object({
    ...ToolMeta,
    job_id: z.string(),
    status: z.enum(['queued', 'running', 'failed']),
    joined: Joined,
    error: JobView.shape.error,
    retry_after_ms: z.optional(z.int()).check(
      z.meta({
        description: 'queued or running: when to collect the job (GET /v1/jobs/{job_id}, or get_job over MCP)',
      }),
    ),
  }),
]);

/** An internationalised domain in Unicode, for display (`domain` is its punycode); else the same as `domain`. */
const DomainUnicode = z.string();

const CompetitorRow = z.object({
  id: z.int(),
  domain: z.string(),
  domain_unicode: DomainUnicode,
  display_name: z.nullable(z.string()),
  color: z.nullable(z.string()),
  active: z.boolean(),
  added_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const AddCompetitorResult = z.object({
  ...ToolMeta,
  competitor: CompetitorRow,
  created: z.boolean().check(z.meta({ description: 'false when the domain already had a row' })),
  completed: z.boolean().check(
    z.meta({
      description: 'true when this call started monitoring a row db_insert had stored (incomplete or inactive)',
    }),
  ),
  monitoring_deferred: z.int().check(
    z.meta({
      description: 'First monitoring runs the budget had no room for: not queued; the daily schedule tries them again',
    }),
  ),
  monitoring: MonitoringCost,
});

export const HEALTH_FLAGS = [
  'ratio_below_3:1',
  'spam_clean',
  'spam_elevated',
  'velocity_below_competitors',
  'dofollow_below_50pct',
  'broken_links_present',
  'anchor_overoptimized',
] as const;
export type HealthFlag = (typeof HEALTH_FLAGS)[number];

const LinkingPageSchema = z.object({
  url_from: z.string(),
  url_to: z.string(),
  anchor: z.string(),
  authority: z
    .int()
    .check(z.meta({ description: `${LIMITS.authorityMin}–${LIMITS.authorityMax}, higher is stronger` })),
  dofollow: z.boolean(),
  first_seen: z.nullable(z.string()),
});

const BacklinkProfileSchema = z.object({
  domain: z.string(),
  domain_unicode: DomainUnicode,
  is_site: z.boolean(),
  is_competitor: z.boolean(),
  snapshot_at: z.nullable(z.string()).check(z.meta({ description: 'When monitoring took it; null if live' })),
  // When monitoring took the anchors, pages and referring domains (docs/api/research-tools.md#serp_backlinks).
  detail_at: z.nullable(z.string()),
  summary: z.object({
    backlinks: z.int(),
    referring_domains: z.int(),
    rank: z.int(),
    backlinks_per_referring_domain: z.nullable(z.number()),
    spam_score: z.number(),
    broken_links: z.int(),
    dofollow_share: z.number(),
  }),
  anchors: z.array(z.object({ anchor: z.string(), backlinks: z.int(), share: z.number() })),
  top_linking_pages: z.array(LinkingPageSchema),
  referring_domains: z.array(z.object({ domain: z.string(), rank: z.int(), backlinks: z.int() })),
  health: z.array(z.enum(HEALTH_FLAGS)),
});

export const SerpBacklinksResult = z.union([
  z.object({ ...ToolMeta, empty: z.literal(true) }),
  z.object({
    ...ToolMeta,
    scope: z.string(),
    depth: z.literal('overview'),
    profiles: z.array(BacklinkProfileSchema),
    trend: z.array(
      z.object({
        domain: z.string(),
        points: z.array(
          z.object({
            month: z.string(),
            backlinks: z.int(),
            referring_domains: z.int(),
            new_referring_domains: z.int(),
            rank: z.int(),
          }),
        ),
      }),
    ),
    gap: z.array(z.object({ domain: z.string(), rank: z.int(), links_to: z.array(z.string()) })).check(
      z.meta({
        description: 'Domains linking to competitors, not the site; most competitors first',
      }),
    ),
    gap_at: z.nullable(z.string()),
    health: z
      .array(z.enum(HEALTH_FLAGS))
      .check(z.meta({ description: "The scope's own domain: the site, or the domain looked up" })),
  }),
  z.object({
    ...ToolMeta,
    scope: z.string(),
    depth: z.literal('links'),
    domain: z.string(),
    domain_unicode: DomainUnicode,
    links: z.array(LinkingPageSchema),
  }),
]);

export const TrackRankingsResult = z.object({ ...ToolMeta, ...TrackRankingsFields });

export const RecallResult = z.object({
  ...ToolMeta,
  results: z.array(
    z.looseObject({
      ...ResearchFindings,
      mode: z.string(),
      query: z.string(),
      question: z.nullable(z.string()),
      page_id: z.nullable(z.int()),
      created_at: z.string(),
      matched_terms: z
        .array(z.string())
        .check(z.meta({ description: "The query's terms this research is indexed under: why it answers the query" })),
    }),
  ),
  empty: z.boolean(),
});

interface ToolSpec {
  description: string;
  input: z.ZodMiniType;
  result: z.ZodMiniType;
}

/**
 * Each research tool by name: its description and the schemas of its input and result. A tool's
 * workflow, its handler, its MCP listing and its REST route are typed from its entry here.
 */
export const TOOLS = {
  research: {
    description: `Research a topic. mode keywords: ${KEYWORD_SEEDS}, answered at once with volume, cpc_usd and intent, stored linked to page_id: new candidates as ideas, the page's own keywords and committed ones committed. mode web, reddit (web scoped to reddit) or url (one https page; question gives the focus): a queued job of ${LIMITS.researchSecondsMin} to ${LIMITS.researchSecondsMax} s that finds facts and opinions citing sources src-<n>; the call waits up to wait_ms (max ${LIMITS.waitMsMax}) and answers the research or { job_id, status: "running" } to collect with GET /v1/jobs/{job_id}. At most ${LIMITS.concurrentResearch} web, reddit and url calls run at once across the service, at most ${LIMITS.researchSitePlaces} of them a site's (429 concurrency_limit_exceeded, retry after ${LIMITS.researchRetryAfterMs / 1000} s). Run it only after recall came back empty; a repeated query is answered from storage, and a call identical to one whose job is in process joins that job (same job_id, joined: true, no cost).`,
    input: ResearchInput,
    result: withEstimate(ResearchResult),
  },
  recall: {
    description:
      "The site's stored research that answers the query: research matching all its words (at least three quarters of a query of four or more; stopwords ignored), most matched first, each with its matched_terms. empty: true when none does.",
    input: RecallInput,
    result: RecallResult,
  },
  get_keywords: {
    description: `Pull fresh keyword metrics (volume, cpc_usd, competition, intent) for seeds, a topic or one keyword row, and upsert them into cm_keywords; with topic_id the keywords are attached to the topic. Locale: the keyword row's, else the site's, else WW/en. With topic_id or keyword_id a seed without data is stored as volume 0 and listed in no_data (checked: not pulled or paid for again for ${LIMITS.noDataRecheckDays} days).`,
    input: GetKeywordsInput,
    result: withEstimate(GetKeywordsResult),
  },
  serp_landscape: {
    description: `Keyword and competitor intelligence for exactly one of keyword, topic_id, page_id. depth metrics (default, read-only): demand and stored SERP competition per committed keyword, a coverage header and share of voice per domain, with a verdict suppressed below ${LIMITS.verdictMinVolumeCoverage * 100}% volume coverage; ideas: true also pulls up to ${LIMITS.keywordIdeas} keyword ideas. depth list: also fetches current SERP positions (keyword 1, page all, topic top ${LIMITS.topicListDefault} by score, or limit / keyword_ids); keywords already fetched are skipped. depth analyze: list plus web research (facts and opinions), for at most ${LIMITS.analyzeKeywords} keywords in all (top ${LIMITS.analyzeKeywords} by score, or the first ${LIMITS.analyzeKeywords} keyword_ids; the rest, neither listed nor researched, in research.over_cap); research takes about ${LIMITS.analyzeSecondsMin} to ${LIMITS.analyzeSecondsMax} s, so the call waits up to wait_ms (max ${LIMITS.waitMsMax}) and answers research.status partial with the keywords still in process: call again with the same parameters to collect them (researched keywords answer at once). Ideas (is_idea) are never list or analyze targets.`,
    input: SerpLandscapeInput,
    result: withEstimate(SerpLandscapeResult),
  },
  serp_keyword_refresh: {
    description: `Force a fresh top-${LIMITS.serpDepth} Google organic pull (US/English) for one keyword. ${LIMITS.refreshesPerDay} per site per UTC day. Returns the stored SERP row and the top-${LIMITS.untrackedCompetitorPositions} domains that are neither tracked competitors nor the site.`,
    input: SerpKeywordRefreshInput,
    result: withEstimate(SerpKeywordRefreshResult),
  },
  serp_backlinks: {
    description: `Backlink profiles. scope all (default: the site and its tracked competitors), site, or any domain (looked up live, never added to tracking). depth overview (default): profiles (referring domains, rank, backlinks per referring domain, spam score, broken links, dofollow share, anchors, top linking pages), a monthly trend of trend_months (default ${LIMITS.trendMonthsDefault}, max ${LIMITS.trendMonthsMax}), the link gap (domains linking to competitors but not the site, ranked for outreach) and health[] flags. depth links: the linking pages of one domain (site or a domain) by authority (${LIMITS.authorityMin}–${LIMITS.authorityMax}), limit default ${LIMITS.linksDefault}, max ${LIMITS.linksMax}. { empty: true } while the site has no backlink data yet.`,
    input: SerpBacklinksInput,
    result: withEstimate(SerpBacklinksResult),
  },
  add_competitor: {
    description: `Track a competitor domain (scheme and path are stripped): it appears in serp_landscape share of voice and serp_backlinks, and monitoring starts at once, then daily. At most ${LIMITS.activeCompetitors} active per site (409 competitor_limit_reached). Adding a tracked domain again returns it with created: false and updates display_name and color when given; a row db_insert stored, unmonitored or inactive, is completed (monitoring starts, completed: true). Confirm with the user before adding; db_delete of the cm_competitors row stops monitoring.`,
    input: AddCompetitorInput,
    result: withEstimate(AddCompetitorResult),
  },
  track_rankings: {
    description: `Google positions over time of a topic's committed keywords (top max_keywords by score, default ${LIMITS.trackKeywordsDefault}, max ${LIMITS.trackKeywordsMax}) or a page's, daily or weekly (off stops), at depth (default top ${LIMITS.rankDepthDefault}, max ${LIMITS.rankDepthMax}), a site setting; first check now. Answers the tracking and its monthly cost; no scope lists it. Read: serp_landscape history_days. Deleting the topic, page or keyword stops it.`,
    input: TrackRankingsInput,
    result: withEstimate(TrackRankingsResult),
  },
  db_select: {
    description:
      'Read rows of cm_topics, cm_pages, cm_keywords, cm_topic_keywords or cm_competitors, ordered by id, with optional equality filters and a cursor.',
    input: DbSelectInput,
    result: DbSelectResult,
  },
  db_insert: {
    description: `Insert a row; the integer id comes from the site's sequence for that table. cm_keywords is unique per (locale, keyword), cm_topic_keywords per (topic_id, keyword_id). A cm_competitors row is incomplete: it takes a place under the cap of ${LIMITS.activeCompetitors} but is not monitored until add_competitor completes it; with active: false it is stored inactive, outside the cap.`,
    input: DbInsertInput,
    result: DbInsertResult,
  },
  db_delete: {
    description: `Delete a row by id. Deleting a keyword or a topic also deletes its cm_topic_keywords links; deleting a cm_competitors row stops its monitoring and frees its place under the cap of ${LIMITS.activeCompetitors}; a topic or page, its rank tracking.`,
    input: DbDeleteInput,
    result: DbDeleteResult,
  },
} as const satisfies Record<ToolName, ToolSpec>;

/** What a tool's workflow is given: its input as the tool's schema parsed it. */
export type ToolInput<N extends ToolName> = z.output<(typeof TOOLS)[N]['input']>;
/** What a tool answers: its result schema's shape. */
export type ToolResult<N extends ToolName> = z.input<(typeof TOOLS)[N]['result']>;

/** A tool's entry with its name. */
export type NamedToolSpec = ToolSpec & { name: ToolName };

/** The tools in the order they are listed (TOOL_NAMES's), each with its name. */
export const TOOL_LIST: readonly NamedToolSpec[] = TOOL_NAMES.map((name) => ({ name, ...TOOLS[name] }));

const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);
export const toolSpec = (name: string): NamedToolSpec | undefined =>
  isToolName(name) ? { name, ...TOOLS[name] } : undefined;

export const ToolListing = z.array(
  z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) }),
);

/** `GET /v1/tools`: each tool with a JSON Schema of its input, generated from the zod schema that validates it. */
export function toolListing(): z.output<typeof ToolListing> {
  return TOOL_LIST.map((tool) => {
    const { $schema: _ignored, ...input_schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
    return { name: tool.name, description: tool.description, input_schema };
  });
}
