import type { Job, Store } from '@cm/store';
import { isEnded } from './jobs';
import { expireLapsed } from './leases';

/* Waiting for research: a call polls its jobs until they end or its time is up. */

/** How often a waiting call looks at its job. */
const POLL_MS = 200;

/** Waits until the next look, or until `deadline` if that comes first. */
export const nextPoll = (deadline: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));

/** Waits up to `waitMs` for the job to end; the job as it is then (a job whose lease lapsed ends now). */
export async function awaitJob(store: Store, jobId: string, siteId: number, waitMs: number): Promise<Job | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const read = await store.jobs.get(jobId, siteId);
    const job = read && (await expireLapsed(store, read));
    if (!job || isEnded(job) || Date.now() >= deadline) return job;
    await nextPoll(deadline);
  }
}
