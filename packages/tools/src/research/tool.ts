import { ApiError, fieldError, LIMITS, isJobMode, type JobMode, type ResearchInput } from '@cm/contract';
import { RECENT_RESEARCH_MS, normalizedResearchQuery } from '@cm/core';
import type { Job } from '@cm/store';
import type { ToolContext } from '../context';
import { findingsOf, newJobId, queueJob } from './jobs';
import { estimateKeywordResearch, keywordResearch } from './keywords-mode';
import { callsOf, freeOf, withPlan, type EstimateDeps, type ToolPlan } from '../plan';
import { lapsedPlace } from './leases';
import { urlRefusal } from './url-refusal';
import { awaitJob } from './waiting';

/* The research tool: a recent answer from storage, else a place under the cap and a queued job, waited for. */

const concurrencyLimit = () =>
  new ApiError(
    'concurrency_limit_exceeded',
    `At most ${LIMITS.concurrentResearch} web, reddit and url research calls run at once; retry in ${LIMITS.researchRetryAfterMs / 1000} s`,
    { max_concurrent: LIMITS.concurrentResearch, retry_after_ms: LIMITS.researchRetryAfterMs },
    { 'retry-after': String(LIMITS.researchRetryAfterMs / 1000) },
  );

/** The reply of a research call from its job: the findings when done, else where it stands. */
function researchReply(job: Job, dataSource: string) {
  if (job.status === 'succeeded') {
    if (!job.result) throw new Error(`research job ${job.job_id} succeeded without a result`);
    const { cost_usd, data_source, ...findings } = job.result;
    return { job_id: job.job_id, status: job.status, data_source, cost_usd, cached: false, ...findings };
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
  };
}

/**
 * What a web, reddit or url call does: a URL refused before any work, the same query researched in the
 * last RECENT_RESEARCH_MS answered from storage, else one job. Its run and its estimate both start here.
 */
async function planJobResearch(ctx: ToolContext, input: ResearchInput & { mode: JobMode }) {
  const { mode } = input;
  // Refused before any work, and before a place under the cap is taken.
  const refusal = mode === 'url' ? await urlRefusal(ctx, input.seed) : null;
  if (refusal) throw fieldError('body', 'seed', `${refusal}; url mode fetches public addresses only`);
  const question = input.question ?? null;
  const since = new Date(ctx.now.getTime() - RECENT_RESEARCH_MS).toISOString();
  const recent = await ctx.store.research.latest(
    ctx.siteId,
    normalizedResearchQuery(mode, input.seed, question),
    since,
  );
  return { mode, question, recent };
}

const isJobInput = (input: ResearchInput): input is ResearchInput & { mode: JobMode } => isJobMode(input.mode);

/** research with estimate: true: keywords mode's metrics call, or one research job unless storage answers. */
async function estimateResearch(ctx: ToolContext, input: ResearchInput, deps: EstimateDeps): Promise<ToolPlan> {
  if (!isJobInput(input)) return estimateKeywordResearch(ctx, input);
  const { mode, recent } = await planJobResearch(ctx, input);
  const provider = ctx.researchSource;
  return {
    data_source: recent ? recent.data_source : provider,
    calls: recent ? [] : callsOf(provider, `research_${mode}`, 1, deps.researchUsd(mode)),
    free: recent
      ? freeOf('research', [input.seed], `researched ${recent.created_at}: a repeated query is answered from storage`)
      : [],
    notes: recent ? [] : [`a queued job; at most ${LIMITS.concurrentResearch} run at once across the service`],
  };
}

async function researchRun(ctx: ToolContext, input: ResearchInput) {
  if (!isJobInput(input)) return keywordResearch(ctx, input);
  const { mode, question, recent } = await planJobResearch(ctx, input);
  if (recent)
    return {
      job_id: null,
      status: 'succeeded' as const,
      data_source: recent.data_source,
      cached: true,
      ...findingsOf(recent),
    };

  const jobId = newJobId();
  const leaseUntil = ctx.now.getTime() + ctx.researchLeaseMs;
  const slot = await ctx.store.researchSlots.take(jobId, leaseUntil, Date.now(), lapsedPlace(ctx.store));
  ctx.measure('research_slots_in_use', slot.inflight);
  if (!slot.taken) throw concurrencyLimit();
  try {
    await queueJob(
      ctx,
      jobId,
      'research',
      { mode, query: input.seed, question, page_id: input.page_id ?? null },
      leaseUntil,
    );
  } catch (error) {
    await ctx.store.researchSlots.free(jobId);
    throw error;
  }
  const job = await awaitJob(ctx.store, jobId, ctx.siteId, input.wait_ms);
  if (!job) throw new Error(`research job ${jobId} was gone while its caller waited for it`);
  return researchReply(job, ctx.researchSource);
}
export const research = /* @__PURE__ */ withPlan(researchRun, estimateResearch);
