import { randomBytes } from 'node:crypto';
import type { ResearchMessage } from '@cm/contract';
import { researchJobQuery } from '@cm/core';
import { ProviderError, UrlRefused, type Meter, type ResearchProvider } from '@cm/providers';
import type { Store, StoredResearch } from '@cm/store';
import type { SiteBudget } from '../budget';
import type { ToolContext } from '../context';
import { pendingLedger, recordCalls } from '../ledger';
import { admitWaiting } from './admission';
import { findingsOf, isEnded, siteGroup, storeResearch } from './jobs';
import { shareResearch } from './shared';

/* The research worker: runs a queued job, which has a place (a lease) under the cap, stores its findings and ends it. */

export interface WorkerDeps {
  store: Store;
  research: ResearchProvider;
  meter: Meter;
  enqueue: ToolContext['enqueue'];
  researchLeaseMs: number;
  /** The budget of a job's site, which settles the reservation the job was accepted with. */
  budgetOf(siteId: number): SiteBudget;
}

/**
 * Runs a research job once: the provider's findings are stored (and indexed for recall), the job
 * ends, and its place under the cap goes to the job waiting longest, if any (else it is freed). Every
 * job on the queue was given a place when it was queued; it runs only while it still has it (the
 * lease is renewed) or can take one now. One whose place was taken back (its lease lapsed, so the job
 * ended `lease_expired`) and finds the cap full is dropped: nothing waits in the worker, and nothing
 * goes back on the queue. A repeated delivery of an ended job only frees the place (a no-op when
 * already free). The provider calls go into the usage ledger, under the tool that queued the job,
 * before it ends. Provider failures end the job as failed; a store failure throws, so the queue
 * delivers the message again.
 */
export async function runResearchJob(
  deps: WorkerDeps,
  message: ResearchMessage,
): Promise<{ siteId: number; tool: string } | null> {
  const { store } = deps;
  const job = await store.jobs.get(message.job_id);
  if (!job) return null;
  const ran = { siteId: job.site_id, tool: job.tool };
  const group = siteGroup(job.site_id);
  if (isEnded(job)) {
    await store.researchSlots.free(job.job_id, group);
    return ran;
  }
  const leaseUntil = Date.now() + deps.researchLeaseMs;
  if (!(await store.researchSlots.renew(job.job_id, leaseUntil, Date.now(), group))) return null;
  if (!(await store.jobs.start(job.job_id, new Date().toISOString(), leaseUntil))) {
    await store.researchSlots.free(job.job_id, group);
    return ran;
  }
  const { input } = job;
  deps.meter.writeLinesTo(pendingLedger(store, job.site_id, job.tool));
  const queryKey = researchJobQuery(input);
  let outcome: Parameters<Store['jobs']['finish']>[1];
  const researched = await deps.research
    .research({ mode: input.mode, query: input.query, question: input.question }, deps.meter)
    .then(
      (findings) => ({ findings }),
      (error: unknown) => ({ error }),
    );
  // Every call made goes into the ledger before the job can end or a store write fail: whoever reads the
  // ended job reads its calls, and a message delivered again makes calls of its own.
  await recordCalls(store, job.site_id, job.tool, deps.meter);
  if ('error' in researched) {
    const { error } = researched;
    if (!(error instanceof ProviderError || error instanceof UrlRefused)) throw error;
    outcome = {
      error: { code: error instanceof UrlRefused ? 'url_refused' : 'provider_error', message: error.message },
    };
  } else {
    const { findings } = researched;
    const record: StoredResearch = {
      research_id: `res_${randomBytes(10).toString('hex')}`,
      mode: input.mode,
      query: input.query,
      question: input.question,
      page_id: input.page_id,
      data_source: deps.research.name,
      created_at: new Date().toISOString(),
      ...findings,
    };
    await storeResearch(store, job.site_id, record, queryKey);
    // The provider's answer serves identical research of every site for a day (this site's own, for 7).
    // Sharing is a saving, not the job: a share that cannot be written leaves other sites to research it,
    // where failing the job would have the queue deliver it again and pay the providers twice.
    await shareResearch(store, queryKey, findings, {
      fetched_at: record.created_at,
      data_source: record.data_source,
    }).catch(() => undefined);
    outcome = { result: { ...findingsOf(record), data_source: record.data_source, cost_usd: deps.meter.costUsd } };
  }
  // The reservation made when the job was accepted becomes what its calls were billed, before the job
  // ends: a message delivered again after a crash finds an ended job and would settle nothing.
  if (job.budget) await deps.budgetOf(job.site_id).settle(job.budget, deps.meter.costUsd, deps.meter.simulated);
  await store.jobs.finish(job.job_id, outcome, new Date().toISOString());
  if ('error' in outcome) await store.research.giveBackQuery(job.site_id, queryKey, job.job_id);
  await store.researchSlots.free(job.job_id, group);
  // The freed place goes to the job waiting longest, unless this job was handed its own place: a
  // hand-off is one hop, never a chain of them (the sweep admits what is left, every minute).
  if (!message.handed_over) await admitWaiting(deps, 1, true);
  return ran;
}
