import type { Store } from '@cm/store';
import { isEnded } from './jobs';
import { expireLapsed } from './leases';

/* The research sweep: the research-sweep function's work, every minute. */

/**
 * The periodic sweep: every research place whose lease has lapsed is freed, and its job, unless it
 * ended, ends `lease_expired`. One read of the cap's item when nothing lapsed.
 */
export async function sweepResearch(store: Store, now = Date.now()): Promise<{ expired: number; freed: number }> {
  const { leases } = await store.researchSlots.state();
  let expired = 0;
  let freed = 0;
  for (const [holder, expiry] of Object.entries(leases)) {
    if (expiry > now) continue;
    const job = await store.jobs.get(holder);
    if (job && !isEnded(job)) {
      if ((await expireLapsed(store, job, now)).status === 'failed') expired++;
    } else if (await store.researchSlots.reclaim(holder, expiry)) freed++;
  }
  return { expired, freed };
}
