import { ApiError } from '@cm/contract';
import { researchJobQuery } from '@cm/core';
import type { ToolContext } from '../context';
import { queryStates, queueClaimedJob } from './claims';
import { findingsOf, isEnded } from './jobs';
import { expireLapsed, hasLapsed } from './leases';
import type { Job, ResearchJobInput } from '@cm/store';
import { researchFromShared, sharedResearch } from './shared';
import { nextPoll } from './waiting';

/* serp_landscape analyze's research: a web job per keyword, queued once however many callers ask. */

/** analyze researches each keyword as a web query of its own. */
const keywordJob = (keyword: string): ResearchJobInput => ({
  mode: 'web',
  query: keyword,
  question: null,
  page_id: null,
});
const keywordResearchQuery = (keyword: string) => researchJobQuery(keywordJob(keyword));

/** The keywords' findings any site's job fetched within the shared window ({@link sharedResearch}), by keyword. */
async function sharedByKeyword(ctx: ToolContext, keywords: readonly string[]) {
  const shared = await sharedResearch(ctx, keywords.map(keywordResearchQuery));
  return new Map(
    keywords.flatMap((k) => {
      const found = shared.get(keywordResearchQuery(k));
      return found ? [[k, found] as const] : [];
    }),
  );
}

/**
 * Web research for each keyword (analyze): stored research of the last week answers at once; a
 * keyword no job is researching gets one, queued without a place (it waits for one in the worker
 * instead of failing); then the call waits until `deadline` for the rest. Keywords still in process
 * make the status `partial`, and the same call later collects them without queueing them again.
 */
const isId = (id: string | null): id is string => id !== null;

/** The research state of each keyword's query ({@link queryStates}), by keyword. */
async function researchStates(ctx: ToolContext, keywords: readonly string[]) {
  const states = await queryStates(ctx, keywords.map(keywordResearchQuery));
  const byKeyword =
    <T>(read: (query: string) => T) =>
    (keyword: string) =>
      read(keywordResearchQuery(keyword));
  return {
    staleBefore: states.staleBefore,
    isDone: byKeyword(states.isDone),
    isInProcess: byKeyword(states.isInProcess),
    pendingJobOf: byKeyword(states.pendingJobOf),
    researchIdOf: byKeyword(states.researchIdOf),
  };
}

/**
 * What analyze's research of these keywords would do now, read only: the keywords researched recently
 * (free), those a live job researches (free: the call joins it), those the shared cache answers (free),
 * and those it would queue (a job each; a claim whose job's lease lapsed is queued anew, as the run does).
 */
export async function planKeywordResearch(ctx: ToolContext, keywords: readonly string[]) {
  const { isDone, isInProcess, pendingJobOf } = await researchStates(ctx, keywords);
  const claimed = keywords.filter(isInProcess);
  const jobs = await Promise.all(
    claimed.map((k) => {
      const jobId = pendingJobOf(k);
      return jobId === null ? Promise.resolve(null) : ctx.store.jobs.get(jobId);
    }),
  );
  const now = Date.now();
  const lapsed = new Set(claimed.filter((_k, i) => hasLapsedJob(jobs[i] ?? null, now)));
  const unanswered = keywords.filter((k) => (!isDone(k) && !isInProcess(k)) || lapsed.has(k));
  const shared = await sharedByKeyword(ctx, unanswered);
  return {
    done: keywords.filter(isDone),
    inProcess: claimed.filter((k) => !lapsed.has(k)),
    shared: unanswered.filter((k) => shared.has(k)),
    toQueue: unanswered.filter((k) => !shared.has(k)),
  };
}

const hasLapsedJob = (job: Job | null, now: number): boolean => job !== null && hasLapsed(job, now);

export async function researchKeywords(ctx: ToolContext, keywords: readonly string[], deadline: number) {
  const read = () => researchStates(ctx, keywords);
  let states = await read();
  const isDone = (keyword: string) => states.isDone(keyword);
  const isInProcess = (keyword: string) => states.isInProcess(keyword);
  const pendingJobOf = (keyword: string) => states.pendingJobOf(keyword);
  const researchIdOf = (keyword: string) => states.researchIdOf(keyword);
  const { staleBefore } = states;

  // A claim lasts as long as its job's lease: the claims of jobs that lapsed are given back, and queued anew below.
  const claimed = await Promise.all(
    keywords
      .filter(isInProcess)
      .map(pendingJobOf)
      .filter(isId)
      .map((jobId) => ctx.store.jobs.get(jobId)),
  );
  const lapsed = await Promise.all(
    claimed.map(
      async (job) => job !== null && !isEnded(job) && (await expireLapsed(ctx.store, job)).status === 'failed',
    ),
  );
  if (lapsed.some(Boolean)) states = await read();

  const unanswered = keywords.filter((k) => !isDone(k) && !isInProcess(k));
  // A keyword the budget has no room for is listed as failed, with why; the rest of the call stands.
  const refused = new Map<string, { code: string; message: string }>();
  if (unanswered.length > 0) {
    // A keyword any site researched within the shared window is the site's research now, with no job.
    const shared = await sharedByKeyword(ctx, unanswered);
    const toQueue = unanswered.filter((k) => !shared.has(k));
    await Promise.all([
      ...[...shared].map(([k, found]) => researchFromShared(ctx, keywordJob(k), keywordResearchQuery(k), found)),
      ...toQueue.map((keyword) =>
        queueKeywordResearch(ctx, keyword, staleBefore).catch((error: unknown) => {
          if (!(error instanceof ApiError) || error.code !== 'budget_exceeded') throw error;
          refused.set(keyword, { code: error.code, message: error.message });
        }),
      ),
    ]);
    states = await read();
  }
  const jobIds = new Map<string, string>();
  for (;;) {
    for (const k of keywords.filter(isInProcess)) {
      const jobId = pendingJobOf(k);
      if (jobId !== null) jobIds.set(k, jobId);
    }
    if (!keywords.some(isInProcess) || Date.now() >= deadline) break;
    await nextPoll(deadline);
    states = await read();
  }

  const records = await ctx.store.research.getMany(ctx.siteId, keywords.filter(isDone).map(researchIdOf).filter(isId));
  const failed = keywords.filter((k) => !isDone(k) && !isInProcess(k));
  const failedJobs = await Promise.all(
    failed.map((k) => {
      const jobId = jobIds.get(k);
      return jobId === undefined ? Promise.resolve(null) : ctx.store.jobs.get(jobId, ctx.siteId);
    }),
  );
  const factsByKeyword: Record<string, ReturnType<typeof findingsOf> & { data_source: string; created_at: string }> =
    {};
  for (const k of keywords.filter(isDone)) {
    const researchId = researchIdOf(k);
    const record = researchId === null ? undefined : records.get(researchId);
    if (record)
      factsByKeyword[k] = { ...findingsOf(record), data_source: record.data_source, created_at: record.created_at };
  }
  const inProcess = keywords.filter(isInProcess);
  return {
    status: inProcess.length === 0 && failed.length === 0 ? ('complete' as const) : ('partial' as const),
    facts_by_keyword: factsByKeyword,
    in_process: inProcess,
    failed: failed.map((keyword, i) => ({
      keyword,
      error: refused.get(keyword) ??
        failedJobs[i]?.error ?? {
          code: 'research_failed',
          message: 'the research of this keyword ended without a result; call again to retry it',
        },
    })),
  };
}

/** Queues the keyword's research under its query's claim, with a place if one is free, or else to wait for one. */
async function queueKeywordResearch(ctx: ToolContext, keyword: string, staleBefore: string): Promise<void> {
  await queueClaimedJob(ctx, 'serp_landscape', keywordJob(keyword), { staleBefore, waitForPlace: true });
}
