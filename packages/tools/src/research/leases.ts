import type { JobError } from '@cm/contract';
import { researchJobQuery } from '@cm/core';
import type { Job, Revocable, Store } from '@cm/store';
import { settleTicket } from '../budget';
import { isEnded, siteGroup } from './jobs';

/* Job leases: a job whose lease lapsed ends lease_expired, and gives back its place, its claim and, if it never started, its reservation. */

const LEASE_EXPIRED: JobError = {
  code: 'lease_expired',
  message:
    'the job stopped without ending (its worker died, or its message was lost); make the same call again to research it anew',
  retryable: true,
};

/** Whether a job is still open with a lease that ended by `now`: {@link expireLapsed} ends it. */
export const hasLapsed = (job: Job, now: number): boolean =>
  !isEnded(job) && job.lease_until !== undefined && job.lease_until <= now;

/**
 * Ends a job whose lease has lapsed: `failed` with `lease_expired`, its place under the cap freed and
 * its query's claim given back, so the same call queues it anew. The job as it is now; unchanged when it
 * is alive, ended, or was renewed meanwhile.
 */
export async function expireLapsed(store: Store, job: Job, now = Date.now()): Promise<Job> {
  if (!hasLapsed(job, now)) return job;
  const at = new Date(now).toISOString();
  if (!(await store.jobs.fail(job, LEASE_EXPIRED, at))) return (await store.jobs.get(job.job_id)) ?? job;
  await store.researchSlots.free(job.job_id, siteGroup(job.site_id));
  await store.research.giveBackQuery(job.site_id, researchJobQuery(job.input), job.job_id);
  // A job never started made no call: its hold is cancelled (a worker that starts it late adds its bill
  // all the same). A started one may have paid calls its ledger keeps pending: its hold stays, settled by
  // a worker still alive, or charged at its estimate when it expires, so the budget counts them too.
  if (job.budget && job.status === 'queued') await settleTicket(store, job.site_id, job.budget, 0, false);
  return { ...job, status: 'failed', error: LEASE_EXPIRED, updated_at: at };
}

/**
 * Whether a place under the cap may be taken back: its lease lapsed. A job that still had it ends
 * `lease_expired` (freeing its claim and budget too), so no job is left running without a place,
 * where the sweep, which walks the places, would never find it.
 */
export const lapsedPlace =
  (store: Store, now = Date.now()): Revocable =>
  async (owner, expiry) => {
    if (expiry > now) return false;
    const job = await store.jobs.get(owner);
    if (job && !isEnded(job)) await expireLapsed(store, job, now);
    return true;
  };
