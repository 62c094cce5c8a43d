import type { Enqueue, ResearchMessage } from '@cm/contract';
import type { Store } from '@cm/store';

/* Admission of research jobs that wait for a place under the cap (analyze's, when the cap was full). */

export interface AdmissionDeps {
  store: Store;
  enqueue: Enqueue;
  researchLeaseMs: number;
}

/**
 * Admits up to `limit` of the jobs waiting longest: each takes a place (one conditional write, which
 * also makes two admitters of the same job admit it once), is leased, and is queued; a job that ended
 * meanwhile gives its place back. Stops at the first place it cannot take (the cap is full again).
 * `handedOver` marks the messages of jobs a job ending handed its place to. Answers how many it queued.
 */
export async function admitWaiting(deps: AdmissionDeps, limit: number, handedOver = false): Promise<number> {
  const { store } = deps;
  const waiting = await store.researchWaits.oldest(limit);
  const settled: typeof waiting = [];
  let admitted = 0;
  for (const entry of waiting) {
    const leaseUntil = Date.now() + deps.researchLeaseMs;
    if (!(await store.researchSlots.take(entry.jobId, leaseUntil)).taken) break;
    settled.push(entry);
    if (!(await store.jobs.renew(entry.jobId, new Date().toISOString(), leaseUntil))) {
      await store.researchSlots.free(entry.jobId);
      continue;
    }
    const message: ResearchMessage = { job_id: entry.jobId, ...(handedOver ? { handed_over: true } : {}) };
    await deps.enqueue('research', message);
    admitted++;
  }
  await store.researchWaits.remove(settled);
  return admitted;
}
