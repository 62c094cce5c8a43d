import * as z from 'zod/mini';
import { RowId, SerpItem } from './cm-tables';
import { named } from './common';
import { LIMITS } from './limits';
import { BudgetTicket } from './budget';
import { EstimateFields } from './estimate';
import { AiOverview, AiOverviewHistory } from './ai-overviews';

/*
 * Rank tracking (docs/api.md#track_rankings): what track_rankings takes and answers, the history
 * serp_landscape answers with history_days, and the messages of the rank and rank-collect queues.
 */

export const CADENCES = ['daily', 'weekly', 'off'] as const;
export type Cadence = (typeof CADENCES)[number];
/** How often a tracked scope's keywords are checked: daily, or weekly on the weekday tracking began. */
export type TrackedCadence = Exclude<Cadence, 'off'>;

export const TRACKED_SCOPES = ['topic', 'page'] as const;

/** The device a check asks Google's results for: a mobile SERP and a desktop SERP are different data. */
export const DEVICES = ['desktop', 'mobile'] as const;
export type Device = (typeof DEVICES)[number];
/** A new tracking's device when none is given: most of Google's searches are made on phones. */
export const DEFAULT_DEVICE: Device = 'mobile';
/** The device of what was stored before devices were: every check was a desktop SERP. */
export const StoredDevice = z._default(z.enum(DEVICES), 'desktop');
export type TrackedScopeType = (typeof TRACKED_SCOPES)[number];

export const TrackRankingsInput = z
  .object({
    topic_id: z.optional(RowId),
    page_id: z.optional(RowId),
    cadence: z.optional(z.enum(CADENCES)),
    // Their defaults, and that depth is a site setting, are in the tool's description: tools/list stays small.
    max_keywords: z.optional(z.int().check(z.minimum(1), z.maximum(LIMITS.trackKeywordsMax))),
    depth: z.optional(
      z
        .int()
        .check(z.minimum(LIMITS.rankDepthStep), z.maximum(LIMITS.rankDepthMax), z.multipleOf(LIMITS.rankDepthStep)),
    ),
    device: z.optional(z.enum(DEVICES)),
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.topic_id !== undefined && v.page_id !== undefined)
        ctx.addIssue({ code: 'custom', path: [], message: 'give topic_id or page_id, not both' });
      const scoped = v.topic_id !== undefined || v.page_id !== undefined;
      if (scoped && v.cadence === undefined)
        ctx.addIssue({ code: 'custom', path: ['cadence'], message: 'Required with topic_id or page_id' });
      if (!scoped && v.cadence !== undefined)
        ctx.addIssue({ code: 'custom', path: ['cadence'], message: 'applies with topic_id or page_id only' });
      if (v.max_keywords !== undefined && v.topic_id === undefined)
        ctx.addIssue({ code: 'custom', path: ['max_keywords'], message: 'applies to topic_id only' });
      // Said, not dropped: a device is a tracking's setting, so it needs a scope turned on.
      if (v.device !== undefined && (v.cadence === undefined || v.cadence === 'off'))
        ctx.addIssue({
          code: 'custom',
          path: ['device'],
          message: 'applies with topic_id or page_id and cadence daily or weekly only',
        });
    }),
  );
export type TrackRankingsInput = z.output<typeof TrackRankingsInput>;

const Scope = z.object({ type: z.enum(TRACKED_SCOPES), id: z.int(), name: z.string() });

/** How a scope's run of a day ended: every keyword checked or posted, some left (budget, provider), or none (error). */
export const RUN_STATUSES = ['ok', 'partial', 'failed'] as const;

/** A tracked scope's last run of its checks, as its item keeps it and track_rankings answers it. */
export const ScopeRun = z.object({
  /** The check day the run was for. */
  day: z.string(),
  status: z.enum(RUN_STATUSES),
  error: z.optional(z.string()),
});
export type ScopeRun = z.infer<typeof ScopeRun>;

/** A check that failed: a keyword's (the provider had no SERP for it) or, without `keyword`, a scope's whole run of that day. */
export const FailedCheck = z.object({ day: z.string(), keyword: z.optional(z.string()), error: z.string() });
export type FailedCheck = z.infer<typeof FailedCheck>;

/** What a month of checks costs at list prices. */
const Monthly = { checks_per_month: z.number(), usd_per_month: z.number() };

/** track_rankings' answer, beside the fields every result has (tools.ts). */
export const TrackRankingsFields = {
  tracking: z.array(
    z.object({
      scope: Scope,
      cadence: z.enum(['daily', 'weekly']),
      device: z.enum(DEVICES),
      max_keywords: z.nullable(z.int()),
      since: z.string(),
      keywords: z.array(z.string()),
      ...Monthly,
      /** Absent until the scope's first run. */
      last_run: z.optional(ScopeRun),
    }),
  ),
  depth: z.int(),
  total: z.object({ keywords: z.int(), ...Monthly }),
  untracked: z.array(z.object({ keyword: z.string(), reason: z.string() })),
  first_check: z
    .nullable(z.object({ queued: z.int(), deferred: z.int() }))
    .check(z.meta({ description: 'deferred: no budget room' })),
};

/** A position per day of `days` (null: not in the checked results, or no check that day). */
const Positions = z.array(z.nullable(z.int()));
/** What moved most over the window: its first and last value with data, and the change. */
const Move = { from: z.nullable(z.number()), to: z.nullable(z.number()), change: z.number() };
/** Named once each: winners and losers share one, the domains up and down the other. */
const KeywordMove = named(z.object({ keyword: z.string(), ...Move }), { id: 'RankKeywordMove' });
const DomainMove = named(z.object({ domain: z.string(), ...Move }), { id: 'RankDomainMove' });

/**
 * The curve a reply's estimates weigh positions by (docs/api/research-tools.md#visibility):
 * `published:<source>/<year>`, or `search_console` (the site's own CTR by position). Its names and the
 * fields below are described in the docs, not in tools/list, which stays within its size.
 */
export const CtrCurveName = z.string();

/** A domain's visibility beside its share of voice: 0–100 of the most it could have (first on every keyword), and the clicks a day it earns (an estimate). */
export const Visibility = { visibility_pct: z.number(), estimated_clicks_per_day: z.number() };

/**
 * A keyword two or more of the site's URLs share in the history (docs/api/research-tools.md#cannibalisation):
 * the days they ranked together, the turns of its best URL, and each URL's days as the best and share.
 */
export const Cannibalisation = z.object({
  keyword: z.string(),
  locale: z.string(),
  shared_days: z.int(),
  swaps: z.int(),
  urls: z.array(z.object({ url: z.string(), best_days: z.int(), share: z.number() })),
});
export type Cannibalisation = z.infer<typeof Cannibalisation>;

/**
 * serp_landscape's `history` (history_days, docs/api.md#rank-history): stored rank rows, read one
 * Query per keyword, free. Every series is aligned to `days`.
 */
export const RankHistory = z.object({
  days: z.array(z.string()),
  device: z.enum(DEVICES),
  ctr_curve: CtrCurveName,
  coverage: z.object({
    days: z.int(),
    days_with_data: z.int(),
    keywords_with_data: z.int(),
    failed: z.array(FailedCheck),
  }),
  keywords: z.array(z.object({ keyword: z.string(), locale: z.string(), positions: z.record(z.string(), Positions) })),
  visibility: z.array(
    z.object({
      domain: z.string(),
      is_site: z.boolean(),
      is_competitor: z.boolean(),
      color: z.optional(z.string()),
      clicks: z.array(z.nullable(z.number())),
      sov: z.array(z.nullable(z.number())),
      visibility_pct: z.array(z.nullable(Visibility.visibility_pct)),
      estimated_clicks_per_day: z.array(z.nullable(Visibility.estimated_clicks_per_day)),
    }),
  ),
  winners: z.array(KeywordMove),
  losers: z.array(KeywordMove),
  domains_up: z.array(DomainMove),
  domains_down: z.array(DomainMove),
  pages: z.array(
    z.object({
      page_id: z.int(),
      title: z.string(),
      url: z.string(),
      keywords: z.array(z.object({ keyword: z.string(), positions: Positions })),
    }),
  ),
  over_cap: z.array(z.string()),
  ai_overviews: AiOverviewHistory,
  cannibalisation: z
    .array(Cannibalisation)
    .check(z.meta({ description: "Keywords 2+ of the site's URLs rank for; share: of their CTR-weighted clicks" })),
});

/**
 * A site's rank checks of a day: every tracked scope due that day, or, from track_rankings, the scopes
 * it names (their first check, reserved when queued, as add_competitor's first monitoring run).
 */
export const RankMessage = z.object({
  site_id: z.int(),
  /** The check day (`yyyy-mm-dd`): the schedule's day, whenever the message is handled. */
  day: z.string(),
  requested_at: z.string(),
  scopes: z.optional(z.array(z.object({ type: z.enum(TRACKED_SCOPES), id: z.int() }))),
  budget: z.optional(BudgetTicket),
});
export type RankMessage = z.output<typeof RankMessage>;

const RankCheckKeyword = z.object({ locale: z.string(), keyword: z.string(), device: StoredDevice });

/**
 * A site's checks of a day to collect once ready: the SERP tasks its run posted, and the checks whose
 * SERP another site's run posted (`awaiting`: read from the shared cache once there).
 */
export const RankCollectMessage = z.object({
  site_id: z.int(),
  day: z.string(),
  depth: z.int(),
  /** The site's domain when the checks were posted: its results are kept in full. */
  site_domain: z.nullable(z.string()),
  /** Its competitors and the published pages of these keywords then: what the sandbox places in the public SERP for the site. */
  competitors: z._default(z.array(z.string()), []),
  pages: z._default(z.array(z.object({ url: z.string(), keywords: z.array(z.string()) })), []),
  tasks: z.array(z.object({ id: z.string(), ...RankCheckKeyword.shape })),
  /** The run that claimed these checks, and the scopes its message named: to run them again if their poster gave its claim back. */
  awaiting: z.optional(
    z.object({ run_id: z.string(), checks: z.array(RankCheckKeyword), scopes: RankMessage.shape.scopes }),
  ),
});
export type RankCollectMessage = z.output<typeof RankCollectMessage>;

/**
 * A rank check's SERP in the shared cache of public data, one per keyword, locale, device, depth and
 * day: the provider's public answer (no site placed in it), or why it has none (its task failed for good).
 */
export const SharedRankSerp = z.union([
  // ai_overview: absent from a SERP collected before AI Overviews were recorded.
  z.object({ items: z.array(SerpItem), ai_overview: z.optional(AiOverview) }),
  z.object({ error: z.string() }),
]);
export type SharedRankSerp = z.infer<typeof SharedRankSerp>;

/** A domain's best result in a checked SERP. */
export const RankedDomain = z.object({ domain: z.string(), position: z.int(), url: z.string() });
export type RankedDomain = z.infer<typeof RankedDomain>;

/**
 * One check of a keyword on a day (spec §2.7's SERP row, dated): each domain's best position and URL,
 * and every result of the site's own domain (its published pages' positions are read from them).
 */
export const RankRow = z.object({
  keyword: z.string(),
  locale: z.string(),
  device: StoredDevice,
  day: z.string(),
  checked_at: z.string(),
  data_source: z.string(),
  /** The results the check asked for: a domain not among them ranks below it. */
  depth: z.int(),
  domains: z.array(RankedDomain),
  site_results: z.array(z.object({ position: z.int(), url: z.string() })),
  /** The SERP's AI Overview; absent where the check did not record one (before they were, or from a live pull). */
  ai_overview: z.optional(AiOverview),
});
export type RankRow = z.infer<typeof RankRow>;
