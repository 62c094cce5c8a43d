import { ApiError, fieldError, LIMITS, isJobMode, type JobMode, type ResearchInput } from '@cm/contract';
import { Bug, researchJobQuery } from '@cm/core';
import type { Job, ResearchJobInput, StoredResearch } from '@cm/store';
import type { ToolContext } from '../context';
import { queryStates, queueClaimedJob, type QueryStates } from './claims';
import { findingsOf, isEnded } from './jobs';
import { planKeywordResearch, keywordResearch } from './keywords-mode';
import { callsOf, freeOf, withPlan, type PlanDeps, type ToolPlan } from '../plan';
import { expireLapsed } from './leases';
import { researchFromShared, sharedResearch } from './shared';
import { urlRefusal } from './url-refusal';
import { awaitJob, nextPoll } from './waiting';

/* The research tool: a recent answer from storage, else the job researching the same query, else a place under the cap and a job of its own, waited for. */

/** The spec's error object (§7), whether the cap is full or the site holds its share of it (the message says which). */
const concurrencyLimit = (refused: 'cap' | 'share') =>
  new ApiError(
    'concurrency_limit_exceeded',
    refused === 'share'
      ? `This site already runs its share of the ${LIMITS.concurrentResearch} web, reddit and url research calls that run at once across the service; the rest are left to other sites. Retry in ${LIMITS.researchRetryAfterMs / 1000} s`
      : `At most ${LIMITS.concurrentResearch} web, reddit and url research calls run at once; retry in ${LIMITS.researchRetryAfterMs / 1000} s`,
    { max_concurrent: LIMITS.concurrentResearch, retry_after_ms: LIMITS.researchRetryAfterMs },
    { 'retry-after': String(LIMITS.researchRetryAfterMs / 1000) },
  );

/** The reply of a research call from its job: the findings when done, else where it stands. */
function researchReply(job: Job, dataSource: string, joined: boolean) {
  // A call that joined another's job pays nothing: what the job cost is on the call that queued it.
  const joinedFields = joined ? { joined: true as const, cost_usd: 0 } : {};
  if (job.status === 'succeeded') {
    if (!job.result) throw new Bug(`research job ${job.job_id} succeeded without a result`);
    const { cost_usd, data_source, ...findings } = job.result;
    return {
      job_id: job.job_id,
      status: job.status,
      data_source,
      cost_usd,
      cached: false,
      ...findings,
      ...joinedFields,
    };
  }
  // Not done: what it costs shows when it is collected.
  const pending = job.status === 'queued' || job.status === 'running';
  return {
    job_id: job.job_id,
    status: job.status,
    data_source: dataSource,
    cached: false,
    ...(job.error ? { error: job.error } : {}),
    ...(pending ? { retry_after_ms: LIMITS.jobRetryAfterMs } : {}),
    ...joinedFields,
  };
}

/**
 * How long a claim may stand without its job before another call takes it over: its caller writes the
 * job a few requests after the claim, so a claim this old without one was left by a caller that died.
 */
const JOB_WRITE_MS = 10_000;

/** A stored research's reply: answered from storage, at no cost. */
const storedReply = (record: StoredResearch) => ({
  job_id: null,
  status: 'succeeded' as const,
  data_source: record.data_source,
  cached: true,
  ...findingsOf(record),
});

/**
 * What a web, reddit or url call does: a URL refused before any work; then the query's state: its
 * research of the last RECENT_RESEARCH_MS, or the job researching it now, or else findings of the same
 * query that any site's job fetched in the last SHARED_RESEARCH_MS. Its run and its estimate both start here.
 */
async function decideJobResearch(ctx: ToolContext, input: ResearchInput & { mode: JobMode }) {
  const { mode } = input;
  // Refused before any work, and before a place under the cap is taken.
  const refusal = mode === 'url' ? await urlRefusal(ctx, input.seed) : null;
  if (refusal) throw fieldError('body', 'seed', `${refusal}; url mode fetches public addresses only`);
  const job: ResearchJobInput = {
    mode,
    query: input.seed,
    question: input.question ?? null,
    page_id: input.page_id ?? null,
  };
  const query = researchJobQuery(job);
  const states = await queryStates(ctx, [query]);
  const recent = await recentResearch(ctx, states, query);
  const shared = recent || states.isInProcess(query) ? null : ((await sharedResearch(ctx, [query])).get(query) ?? null);
  return { job, query, states, recent, shared };
}

/** The query's research of the last RECENT_RESEARCH_MS, if any. */
async function recentResearch(ctx: ToolContext, states: QueryStates, query: string) {
  const researchId = states.isDone(query) ? states.researchIdOf(query) : null;
  return researchId === null ? null : ctx.store.research.get(ctx.siteId, researchId);
}

const isJobInput = (input: ResearchInput): input is ResearchInput & { mode: JobMode } => isJobMode(input.mode);

/** research with estimate: true: keywords mode's metrics call, or one research job unless storage or the shared cache answers, or a job is researching it. */
async function planResearch(ctx: ToolContext, input: ResearchInput, deps: PlanDeps): Promise<ToolPlan> {
  if (!isJobInput(input)) return planKeywordResearch(ctx, input);
  const { job, query, states, recent, shared } = await decideJobResearch(ctx, input);
  const provider = ctx.researchSource;
  if (recent)
    return {
      data_source: recent.data_source,
      calls: [],
      free: freeOf(
        'research',
        [input.seed],
        `researched ${recent.created_at}: a repeated query is answered from storage`,
      ),
      notes: [],
    };
  if (shared)
    return {
      data_source: shared.data_source,
      calls: [],
      free: freeOf(
        'research',
        [input.seed],
        `researched ${shared.fetched_at} for an identical request: answered from the shared cache`,
      ),
      notes: [],
    };
  if (states.isInProcess(query))
    return {
      data_source: provider,
      calls: [],
      free: freeOf('research', [input.seed], 'a job is researching the same query: the call joins it'),
      notes: [],
    };
  return {
    data_source: provider,
    calls: callsOf(provider, `research_${job.mode}`, 1, deps.researchUsd(job.mode)),
    free: [],
    notes: [`a queued job; at most ${LIMITS.concurrentResearch} run at once across the service`],
  };
}

/**
 * A web, reddit or url call: the query's recent research from storage; else the job researching the
 * same query now, joined (no place, no reservation, no provider call of its own); else findings shared
 * by any site's job of the last day, stored as the site's own research (no place, no provider call, a
 * $0 `cached` ledger line); else a job of its own, queued under the query's claim with a place under
 * the cap (429 when none is free). The claim is one conditional write, so of identical calls at once
 * one queues and the others join.
 */
async function researchRun(ctx: ToolContext, input: ResearchInput) {
  if (!isJobInput(input)) return keywordResearch(ctx, input);
  const { job, query, recent, shared, ...plan } = await decideJobResearch(ctx, input);
  if (recent) return storedReply(recent);
  if (shared) return storedReply(await researchFromShared(ctx, job, query, shared));
  const deadline = Date.now() + input.wait_ms;
  const collect = async (jobId: string, joined: boolean) => {
    const ended = await awaitJob(ctx.store, jobId, ctx.siteId, Math.max(0, deadline - Date.now()));
    if (!ended) throw new Error(`research job ${jobId} was gone while its caller waited for it`);
    return researchReply(ended, ctx.researchSource, joined);
  };
  for (let states = plan.states; ; states = await queryStates(ctx, [query])) {
    const stored = await recentResearch(ctx, states, query);
    if (stored) return storedReply(stored);
    const pendingJob = states.isInProcess(query) ? states.pendingJobOf(query) : null;
    const pending = pendingJob === null ? null : await ctx.store.jobs.get(pendingJob, ctx.siteId);
    const unwrittenBefore = new Date(Date.now() - JOB_WRITE_MS).toISOString();
    const abandoned = pendingJob !== null && !pending && (states.pendingSince(query) ?? '') < unwrittenBefore;
    if (pendingJob === null || abandoned) {
      const staleBefore = abandoned ? unwrittenBefore : states.staleBefore;
      const queued = await queueClaimedJob(ctx, 'research', job, { staleBefore, waitForPlace: false });
      if (queued.outcome === 'cap_full') throw concurrencyLimit(queued.refused);
      if (queued.outcome === 'queued') return collect(queued.jobId, false);
      continue; // another call claimed it meanwhile: the next read finds its job
    }
    if (!pending) {
      await nextPoll(Number.POSITIVE_INFINITY); // its caller is writing it: a poll, whatever wait_ms is
      continue;
    }
    // A job ended (or whose lease lapsed, ended now) captures no later call: the next read finds its
    // research, or no claim (a failed job's claim, if its end left it, is given back here).
    const current = await expireLapsed(ctx.store, pending);
    if (!isEnded(current)) return collect(current.job_id, true);
    if (current.status === 'failed') await ctx.store.research.giveBackQuery(ctx.siteId, query, current.job_id);
  }
}
export const research = /* @__PURE__ */ withPlan(researchRun, planResearch);
