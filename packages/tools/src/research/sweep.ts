import { LIMITS } from '@cm/contract';
import { groupsOf } from '@cm/store';
import { admitWaiting, type AdmissionDeps } from './admission';
import { isEnded } from './jobs';
import { expireLapsed } from './leases';

/* The research sweep: the research-sweep function's work, every minute. */

/**
 * The periodic sweep: every research place whose lease has lapsed is freed, and its job, unless it
 * ended, ends `lease_expired`; then the places free are given to the jobs waiting longest. One read
 * of the cap's item and one Query of the waiting list when nothing lapsed and nothing waits. Each of
 * its runs starts a chain of its own, so what it queues never lengthens a chain of research workers.
 */
export async function sweepResearch(
  deps: AdmissionDeps,
  now = Date.now(),
): Promise<{ expired: number; freed: number; admitted: number }> {
  const { store } = deps;
  const state = await store.researchSlots.state();
  const { leases } = state;
  const groups = groupsOf(state);
  let expired = 0;
  let freed = 0;
  for (const [owner, expiry] of Object.entries(leases)) {
    if (expiry > now) continue;
    const job = await store.jobs.get(owner);
    if (job && !isEnded(job)) {
      if ((await expireLapsed(store, job, now)).status === 'failed') expired++;
    } else if (await store.researchSlots.revoke(owner, expiry, groups.get(owner))) freed++;
  }
  const inUse = Object.keys(leases).length - expired - freed;
  const admitted = await admitWaiting(deps, LIMITS.concurrentResearch - inUse);
  return { expired, freed, admitted };
}
