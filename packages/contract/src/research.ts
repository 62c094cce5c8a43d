import * as z from 'zod/mini';
import { named } from './common';
import { LIMITS } from './limits';
import { RowId } from './cm-tables';
import { BudgetTicket } from './budget';
import { EstimateFields } from './estimate';

/*
 * The research tool (spec §4.3): its input, its jobs and recall (docs/api.md#research, #jobs, #recall); and the
 * messages of the research and monitor queues.
 */

export const RESEARCH_MODES = ['keywords', 'web', 'reddit', 'url'] as const;
export type ResearchMode = (typeof RESEARCH_MODES)[number];
/** The slow modes: queued jobs that lease a place under the global cap. */
export const JOB_MODES = ['web', 'reddit', 'url'] as const;
export type JobMode = (typeof JOB_MODES)[number];
export const isJobMode = (mode: ResearchMode): mode is JobMode => JOB_MODES.some((jobMode) => jobMode === mode);

/** How a keyword is stored and matched: trimmed, lower case, single spaces. */
export const normalizeKeyword = (keyword: string): string => keyword.trim().toLowerCase().replace(/\s+/g, ' ');

/** keywords mode's seeds: the comma-separated parts of `seed`, normalized, each once; LIMITS bound their count and words. */
export const keywordSeeds = (seed: string): string[] => [...new Set(seed.split(',').map(normalizeKeyword))];
/** What keywords mode takes, in the words of the descriptions and the error: "3 to 5 distinct comma-separated seeds of 1 to 3 words". */
export const KEYWORD_SEEDS = `${LIMITS.keywordSeedsMin} to ${LIMITS.keywordSeedsMax} distinct comma-separated seeds of ${LIMITS.keywordSeedWordsMin} to ${LIMITS.keywordSeedWordsMax} words`;
const SEEDS_RULE = `keywords mode takes ${KEYWORD_SEEDS} each`;

/** What url mode refuses in the URL itself (its host is checked by the tool), or null. */
function urlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url mode takes an https URL';
  }
  if (url.protocol !== 'https:') return 'url mode takes an https URL';
  if (url.username || url.password) return 'url mode takes a URL without credentials (user:password@)';
  return null;
}

export const ResearchInput = z
  .object({
    mode: z.enum(RESEARCH_MODES),
    seed: z.string().check(
      z.trim(),
      z.minLength(1),
      z.maxLength(2000),
      z.meta({
        description: `keywords: ${KEYWORD_SEEDS}; web and reddit: a natural-language query; url: the https URL`,
      }),
    ),
    question: z
      .optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(2000)))
      .check(z.meta({ description: 'url mode: the question to answer from the page' })),
    page_id: z
      .optional(z.nullable(RowId))
      .check(z.meta({ description: 'keywords mode: link the ideas to this cm_pages row' })),
    wait_ms: z
      ._default(z.int().check(z.minimum(0), z.maximum(LIMITS.waitMsMax)), LIMITS.waitMsMax)
      .check(z.meta({ description: 'How long to wait for a job before answering running' })),
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.mode === 'keywords') {
        const seeds = keywordSeeds(v.seed);
        const words = seeds.map((s) => (s ? s.split(' ').length : 0));
        const seedsOk = seeds.length >= LIMITS.keywordSeedsMin && seeds.length <= LIMITS.keywordSeedsMax;
        if (!seedsOk || words.some((n) => n < LIMITS.keywordSeedWordsMin || n > LIMITS.keywordSeedWordsMax)) {
          ctx.addIssue({ code: 'custom', path: ['seed'], message: SEEDS_RULE });
        }
      }
      const problem = v.mode === 'url' ? urlProblem(v.seed) : null;
      if (problem) ctx.addIssue({ code: 'custom', path: ['seed'], message: problem });
      if (v.question !== undefined && v.mode !== 'url')
        ctx.addIssue({ code: 'custom', path: ['question'], message: 'applies to url mode only' });
    }),
  );
export type ResearchInput = z.output<typeof ResearchInput>;

export const Finding = z.object({ text: z.string(), source_ids: z.array(z.string()) });
export type Finding = z.output<typeof Finding>;

export const ResearchSource = z.object({ id: z.string(), title: z.string(), url: z.string(), accessed_at: z.string() });
export type ResearchSource = z.output<typeof ResearchSource>;

/** What a research job finds: facts and opinions, each citing its sources by id. */
export interface Findings {
  facts: Finding[];
  opinions: Finding[];
  sources: ResearchSource[];
}

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job failed: `provider_error`, `url_refused`, or `lease_expired` (its worker died or its message was lost; retryable). */
export const JobError = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.optional(z.boolean()).check(z.meta({ description: 'true: the same call may succeed when made again' })),
});
export type JobError = z.output<typeof JobError>;

export const JobView = named(
  z.object({
    job_id: z.string(),
    tool: z.string(),
    status: z.enum(JOB_STATUSES),
    created_at: z.string(),
    updated_at: z.string().check(z.meta({ description: 'When its status last changed' })),
    result: z.optional(z.record(z.string(), z.unknown())),
    error: z.optional(JobError),
  }),
  { id: 'Job' },
);

export const JobIdParams = z.object({ job_id: z.string().check(z.regex(/^job_[a-z0-9]{20,40}$/, 'not a job id')) });

export const JobQuery = z.object({
  wait_ms: z
    ._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(LIMITS.waitMsMax)), 0)
    .check(z.meta({ description: 'Wait up to this long for the job to end' })),
});

/**
 * The message of the research queue: a job with a place (a lease) under the cap. `handed_over` when the
 * job before it handed it its place as it ended; such a job frees its own at its end without handing
 * it on, so no chain of research worker invocations grows past two.
 */
export const ResearchMessage = z.object({ job_id: z.string(), handed_over: z.optional(z.boolean()) });

/**
 * A site's monitoring run: a backlink snapshot of each domain it names that the site still tracks, or,
 * without `domains` (the daily schedule), of every one: its own and its active competitors'.
 */
export const MonitorMessage = z.object({
  site_id: z.int(),
  /** add_competitor's first runs: the new competitor and the site's own domain. */
  domains: z.optional(z.array(z.string())),
  requested_at: z.string(),
  /** The day (`yyyy-mm-dd`) the run monitors: the schedule's day, whenever the message is handled; absent, today. */
  day: z.optional(z.string()),
  /** The run's reservation, made when add_competitor queued it; a scheduled run reserves when it runs. */
  budget: z.optional(BudgetTicket),
  /** The domains whose numbers of the day the plan charged to this site (its ledger has their lines already). */
  paid: z.optional(z.array(z.string())),
});

/** A block of site ids whose monitoring runs the daily schedule asks for: one message each, from `first_site_id` to `last_site_id`. */
export const MonitorPlanMessage = z.object({
  first_site_id: z.int(),
  last_site_id: z.int(),
  requested_at: z.string(),
});
export type MonitorPlanMessage = z.output<typeof MonitorPlanMessage>;
export type MonitorMessage = z.output<typeof MonitorMessage>;
export type ResearchMessage = z.output<typeof ResearchMessage>;

export const RecallInput = z.object({
  query: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
  mode: z.optional(z.enum(JOB_MODES)),
  page_id: z.optional(RowId),
  limit: z._default(z.int().check(z.minimum(1), z.maximum(LIMITS.recallMax)), LIMITS.recallDefault),
});
export type RecallInput = z.output<typeof RecallInput>;
