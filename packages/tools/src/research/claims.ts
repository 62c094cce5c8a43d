import { RECENT_RESEARCH_MS, researchJobQuery } from '@cm/core';
import type { ResearchJobInput } from '@cm/store';
import type { ToolContext } from '../context';
import { newJobId, queueJob, siteGroup } from './jobs';
import { lapsedPlace } from './leases';

/*
 * A query's claim: the one job researching a query (its identity, researchJobQuery), queued once however
 * many callers ask at once; the others join it. research and analyze both queue through here.
 */

/** A query's claim older than this is taken over even without its job (one never written, or gone). */
const CLAIM_STALE_MS = 15 * 60_000;

/**
 * Where each query stands, read with one batched, strongly consistent read (a caller that just lost a
 * claim reads who won it): done (researched in the last RECENT_RESEARCH_MS), in process (a job claimed
 * it, not stale), and each one's job, claim time and research.
 */
export async function queryStates(ctx: ToolContext, queries: readonly string[]) {
  const since = new Date(ctx.now.getTime() - RECENT_RESEARCH_MS).toISOString();
  const staleBefore = new Date(ctx.now.getTime() - CLAIM_STALE_MS).toISOString();
  const states = await ctx.store.research.queryStates(ctx.siteId, queries);
  const isDone = (query: string) => (states.get(query)?.created_at ?? '') >= since && !!states.get(query)?.research_id;
  return {
    staleBefore,
    isDone,
    isInProcess: (query: string) => !isDone(query) && (states.get(query)?.pending_at ?? '') >= staleBefore,
    /** The job researching a query now, and when it claimed it; null for none. */
    pendingJobOf: (query: string) => states.get(query)?.pending_job ?? null,
    pendingSince: (query: string) => states.get(query)?.pending_at ?? null,
    researchIdOf: (query: string) => states.get(query)?.research_id ?? null,
  };
}

export type QueryStates = Awaited<ReturnType<typeof queryStates>>;

/** What queueing a claimed job came to: queued under this call's claim, left to the job that owns it, or refused a place (the cap full, or the site's share of it). */
type Queued =
  { outcome: 'queued'; jobId: string } | { outcome: 'claimed' } | { outcome: 'cap_full'; refused: 'cap' | 'share' };

/**
 * Claims the query of `input` for a new job (one conditional write: of callers at once, one wins; a claim
 * made before `staleBefore` is taken over) and queues the job, with a place under the cap if one is free
 * and the site holds fewer than its share of them.
 * When none is, `waitForPlace` queues it to wait for one (analyze), else the claim is given back and the
 * answer is `cap_full` (research refuses). A caller that lost the claim is answered `claimed` and takes
 * no place and no reservation. Undoes its claim and place if queueing throws.
 */
export async function queueClaimedJob(
  ctx: ToolContext,
  tool: string,
  input: ResearchJobInput,
  { staleBefore, waitForPlace }: { staleBefore: string; waitForPlace: boolean },
): Promise<Queued> {
  const jobId = newJobId();
  const query = researchJobQuery(input);
  if (!(await ctx.store.research.claimQuery(ctx.siteId, query, jobId, new Date().toISOString(), staleBefore)))
    return { outcome: 'claimed' };
  const leaseUntil = ctx.now.getTime() + ctx.researchLeaseMs;
  const group = siteGroup(ctx.siteId);
  const slot = await ctx.store.researchSlots.take(jobId, leaseUntil, Date.now(), lapsedPlace(ctx.store), group);
  ctx.measure('research_slots_in_use', slot.inflight);
  if (!slot.taken && !waitForPlace) {
    await ctx.store.research.giveBackQuery(ctx.siteId, query, jobId);
    // A new job's id held no place before: it was refused for the cap or for its site's share.
    return { outcome: 'cap_full', refused: slot.refused === 'share' ? 'share' : 'cap' };
  }
  try {
    await queueJob(ctx, jobId, tool, input, slot.taken ? leaseUntil : null);
  } catch (error) {
    if (slot.taken) await ctx.store.researchSlots.free(jobId, group);
    await ctx.store.research.giveBackQuery(ctx.siteId, query, jobId);
    throw error;
  }
  return { outcome: 'queued', jobId };
}
