import type { Enqueue, ResearchMessage } from '@cm/contract';
import type { Store, WaitingJob } from '@cm/store';
import { siteGroup } from './jobs';

/* Admission of research jobs that wait for a place under the cap (analyze's, when the cap was full). */

export interface AdmissionDeps {
  store: Store;
  enqueue: Enqueue;
  researchLeaseMs: number;
}

/** Waiting jobs one Query of the waiting list reads (small items: one page of a few KB). */
const PAGE = 100;

/**
 * Pages of the waiting list one admission reads at most. The jobs of a site at its share are passed
 * over, so the next page is read while places are to be given: at most 1,000 waiting jobs are looked
 * through, which bounds what the sweep and each ending job read (docs/architecture/queued-jobs.md#the-research-caps-share-per-site).
 */
const PAGES = 10;

/**
 * Admits up to `limit` of the jobs waiting longest whose site holds fewer than its share of the cap:
 * each takes a place in its site's group (one conditional write, which also makes two admitters of the
 * same job admit it once), is leased, and is queued; a job that ended meanwhile gives its place back.
 * A job whose site is at its share waits on, and the jobs behind it are read on, page after page;
 * a job another admitter took a place for is done; the first place refused for the cap being full
 * stops it. `handedOver` marks the messages of jobs a job ending handed its place to. Answers how many it queued.
 */
export async function admitWaiting(deps: AdmissionDeps, limit: number, handedOver = false): Promise<number> {
  const { store } = deps;
  const settled: WaitingJob[] = [];
  const atShare = new Set<number>();
  let admitted = 0;
  let after: WaitingJob | undefined;
  let capFull = false;
  for (let page = 0; page < PAGES && admitted < limit && !capFull; page++) {
    const waiting = await store.researchWaits.oldest(PAGE, after);
    after = waiting.at(-1);
    for (const entry of waiting) {
      if (admitted >= limit) break;
      // An entry written before sites had shares names no site: its job does.
      const siteId = entry.siteId ?? (await store.jobs.get(entry.jobId))?.site_id;
      if (siteId === undefined) {
        settled.push(entry); // its job is gone: nothing to admit
        continue;
      }
      if (atShare.has(siteId)) continue;
      const leaseUntil = Date.now() + deps.researchLeaseMs;
      const group = siteGroup(siteId);
      const place = await store.researchSlots.take(entry.jobId, leaseUntil, Date.now(), undefined, group);
      if (!place.taken) {
        if (place.refused === 'cap') {
          capFull = true;
          break;
        }
        if (place.refused === 'held')
          settled.push(entry); // another admitter admitted it
        else atShare.add(siteId);
        continue;
      }
      settled.push(entry);
      if (!(await store.jobs.renew(entry.jobId, new Date().toISOString(), leaseUntil))) {
        await store.researchSlots.free(entry.jobId, group);
        continue;
      }
      const message: ResearchMessage = { job_id: entry.jobId, ...(handedOver ? { handed_over: true } : {}) };
      await deps.enqueue('research', message);
      admitted++;
    }
    if (waiting.length < PAGE) break;
  }
  await store.researchWaits.remove(settled);
  return admitted;
}
