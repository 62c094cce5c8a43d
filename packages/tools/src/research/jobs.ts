import { randomBytes } from 'node:crypto';
import type { ResearchMessage } from '@cm/contract';
import { researchTerms } from '@cm/core';
import type { Job, ResearchJobInput, Store, StoredResearch } from '@cm/store';
import type { ToolContext } from '../context';

/* A research job: its id and input, how it and its findings show, and how one is queued with its reservation. */

export const newJobId = (): string => `job_${randomBytes(12).toString('hex')}`;

/** A site's group under the research cap: its places count against its share too. */
export const siteGroup = (siteId: number): string => String(siteId);

/** What a finished research answers with. */
export const findingsOf = (record: StoredResearch) => ({
  research_id: record.research_id,
  facts: record.facts,
  opinions: record.opinions,
  sources: record.sources,
});

/** Stores a site's research under its query (`queryKey`), indexed for recall by the words of its query and question. */
export const storeResearch = (store: Store, siteId: number, record: StoredResearch, queryKey: string) =>
  store.research.put(siteId, record, researchTerms(`${record.query} ${record.question ?? ''}`), queryKey);

/** A job as GET /v1/jobs and a waiting research call show it. */
export function jobView(job: Job) {
  return {
    job_id: job.job_id,
    tool: job.tool,
    status: job.status,
    created_at: job.created_at,
    updated_at: job.updated_at,
    ...(job.result ? { result: job.result } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
}

export const isEnded = (job: Job) => job.status === 'succeeded' || job.status === 'failed';

/**
 * Reserves the job's list price (402 budget_exceeded when it does not fit) and creates the job with its
 * reservation. A job with a place (`leaseUntil`, its place's lease) is leased as long and put on
 * the research queue; one without waits for a place, unleased (waiting is not dying), in the store's
 * waiting list, and nothing reads or writes for it until a place frees. The caller undoes its own
 * claim and place if this throws.
 */
export async function queueJob(
  ctx: ToolContext,
  jobId: string,
  tool: string,
  input: ResearchJobInput,
  leaseUntil: number | null,
): Promise<void> {
  const budget = await ctx.budget.reserveQueued(ctx.queuedPriceUsd({ research: input.mode }));
  try {
    await ctx.store.jobs.create({
      job_id: jobId,
      site_id: ctx.siteId,
      tool,
      input,
      ...(budget ? { budget } : {}),
      created_at: ctx.now.toISOString(),
      ...(leaseUntil === null ? {} : { lease_until: leaseUntil }),
    });
    if (leaseUntil === null)
      await ctx.store.researchWaits.add({ jobId, since: ctx.now.toISOString(), siteId: ctx.siteId });
    else await ctx.enqueue('research', { job_id: jobId } satisfies ResearchMessage);
  } catch (error) {
    if (budget) await ctx.budget.settle(budget, 0, false);
    throw error;
  }
}
