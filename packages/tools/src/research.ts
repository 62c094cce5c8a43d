import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  ApiError,
  fieldError,
  LIMITS,
  isJobMode,
  keywordSeeds,
  type JobError,
  type JobMode,
  type RecallInput,
  type ResearchInput,
  type ResearchMessage,
} from '@cm/contract';
import { RECENT_RESEARCH_MS, addressRefusal, hostRefusal, normalizedResearchQuery, researchTerms } from '@cm/core';
import { ProviderError, UrlRefused, type Meter, type ResearchProvider } from '@cm/providers';
import type { Job, Reclaimable, Store, StoredResearch } from '@cm/store';
import { DATABASE, rowOrNotFound, siteOf, type ToolContext } from './context';
import { upsertKeywords } from './keywords';
import { settleTicket, type SiteBudget } from './budget';

/** How often a waiting call looks at its job. */
const POLL_MS = 200;
/** A job without a place under the cap looks for one again after this long. */
export const PLACE_WAIT_SECONDS = 5;
/** A query's claim older than this is taken over even without its job (one never written, or gone). */
const CLAIM_STALE_MS = 15 * 60_000;
/** How long url mode waits at the call for its host's addresses; a slower lookup is left to the worker's check. */
const RESOLVE_WAIT_MS = 3_000;

export const newJobId = (): string => `job_${randomBytes(12).toString('hex')}`;

/** What a finished research answers with. */
const findingsOf = (record: StoredResearch) => ({
  research_id: record.research_id,
  facts: record.facts,
  opinions: record.opinions,
  sources: record.sources,
});

/** A job as GET /v1/jobs and a waiting research call show it. */
export function jobView(job: Job) {
  return {
    job_id: job.job_id,
    tool: job.tool,
    status: job.status,
    ...(job.result ? { result: job.result } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
}

type JobInput = { mode: JobMode; query: string; question: string | null; page_id: number | null };
const isEnded = (job: Job) => job.status === 'succeeded' || job.status === 'failed';

/**
 * Reserves the job's list price (402 budget_exceeded when it does not fit), creates the job with its
 * reservation, leased until `leaseUntil`, and puts it on the research queue; the caller undoes its own
 * claim if this throws.
 */
async function queueJob(
  ctx: ToolContext,
  jobId: string,
  tool: string,
  input: JobInput,
  leaseUntil: number,
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
      lease_until: leaseUntil,
    });
    await ctx.enqueue('research', { job_id: jobId } satisfies ResearchMessage);
  } catch (error) {
    if (budget) await ctx.budget.settle(budget, 0, false);
    throw error;
  }
}

const LEASE_EXPIRED: JobError = {
  code: 'lease_expired',
  message:
    'the job stopped without ending (its worker died, or its message was lost); make the same call again to research it anew',
  retryable: true,
};

/**
 * Ends a job whose lease has lapsed: `failed` with `lease_expired`, its place under the cap freed and
 * its query's claim released, so the same call queues it anew. The job as it is now; unchanged when it
 * is alive, ended, or was renewed meanwhile.
 */
export async function expireLapsed(store: Store, job: Job, now = Date.now()): Promise<Job> {
  if (isEnded(job) || job.lease_until === undefined || job.lease_until > now) return job;
  const at = new Date(now).toISOString();
  if (!(await store.jobs.fail(job, LEASE_EXPIRED, at))) return (await store.jobs.get(job.job_id)) ?? job;
  const input = job.input as JobInput;
  await store.researchSlots.free(job.job_id);
  await store.research.releaseQuery(
    job.site_id,
    normalizedResearchQuery(input.mode, input.query, input.question),
    job.job_id,
  );
  // No worker will settle its reservation now; a worker still alive that ends it later adds its bill all the same.
  if (job.budget) await settleTicket(store, job.site_id, job.budget, 0, false);
  return { ...job, status: 'failed', error: LEASE_EXPIRED, updated_at: at };
}

/**
 * Whether a place under the cap may be taken back: its lease lapsed. A job that still held it ends
 * `lease_expired` (freeing its claim and budget too), so no job is left running without a place,
 * where the sweep, which walks the places, would never find it.
 */
const lapsedPlace =
  (store: Store, now = Date.now()): Reclaimable =>
  async (holder, expiry) => {
    if (expiry > now) return false;
    const job = await store.jobs.get(holder);
    if (job && !isEnded(job)) await expireLapsed(store, job, now);
    return true;
  };

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

/** Waits up to `waitMs` for the job to end; the job as it is then (a job whose lease lapsed ends now). */
export async function awaitJob(store: Store, jobId: string, siteId: number, waitMs: number): Promise<Job | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const read = await store.jobs.get(jobId, siteId);
    const job = read && (await expireLapsed(store, read));
    if (!job || isEnded(job) || Date.now() >= deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

/** keywords mode: inline metrics for the seeds, stored as ideas linked to the page. */
async function keywordResearch(ctx: ToolContext, input: ResearchInput) {
  const site = await siteOf(ctx);
  if (input.page_id) await rowOrNotFound(ctx, 'cm_pages', input.page_id);
  const seeds = keywordSeeds(input.seed);
  const metrics = await ctx.keywordData.keywordMetrics(seeds, site.locale, ctx.meter);
  const keywords = seeds.map((keyword) => {
    const m = metrics.get(keyword);
    return {
      keyword,
      volume: m?.volume ?? 0,
      cpc_usd: m?.cpc_usd ?? null,
      competition: m?.competition ?? null,
      intent: m?.intent ?? null,
    };
  });
  const checkedAt = ctx.now.toISOString();
  await upsertKeywords(
    ctx,
    keywords.map(({ keyword, ...figures }) => ({
      target: { keyword, locale: site.locale },
      fields: {
        ...figures,
        checked_at: checkedAt,
        data_source: ctx.keywordData.name,
        ...(input.page_id ? { page_id: input.page_id } : {}),
      },
    })),
    { is_idea: true },
  );
  return { data_source: ctx.keywordData.name, mode: 'keywords', keywords };
}

const concurrencyLimit = () =>
  new ApiError(
    'concurrency_limit_exceeded',
    `At most ${LIMITS.concurrentResearch} web, reddit and url research calls run at once; retry in ${LIMITS.researchRetryAfterMs / 1000} s`,
    { max_concurrent: LIMITS.concurrentResearch, retry_after_ms: LIMITS.researchRetryAfterMs },
    { 'retry-after': String(LIMITS.researchRetryAfterMs / 1000) },
  );

/** The reply of a research call from its job: the findings when done, else where it stands. */
function researchReply(job: Job, dataSource: string) {
  if (job.status === 'succeeded') {
    const { cost_usd, data_source, ...findings } = job.result as Record<string, unknown>;
    return { job_id: job.job_id, status: job.status, data_source, cost_usd, cached: false, ...findings };
  }
  // Not done: what it costs shows when it is collected.
  const pending = job.status === 'queued' || job.status === 'running';
  return {
    job_id: job.job_id,
    status: job.status,
    data_source: dataSource,
    cached: false,
    ...(job.error ? { error: job.error } : {}),
    ...(pending ? { retry_after_ms: LIMITS.jobRetryAfterMs } : {}),
  };
}

/** The host's addresses, or null when the lookup fails or takes longer than RESOLVE_WAIT_MS. */
async function addressesWithin(ctx: ToolContext, host: string): Promise<string[] | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ctx.resolveHost(host),
      new Promise<null>((resolve) => (timer = setTimeout(resolve, RESOLVE_WAIT_MS, null))),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What url mode can refuse at the call, by the worker's own address policy: a private literal or
 * name, or a name that resolves (DNS or the hosts file) to any address that is not public. A name
 * that resolves to nothing, or whose lookup fails, is left to the worker, which checks every name
 * again when it connects: that check is the one that protects, and the sandbox never fetches.
 */
async function urlRefusal(ctx: ToolContext, url: string): Promise<string | null> {
  const host = new URL(url).hostname;
  const refusal = hostRefusal(host);
  if (refusal || isIP(host.replace(/^\[|\]$/g, ''))) return refusal;
  const addresses = await addressesWithin(ctx, host);
  return addresses?.length ? addressRefusal(host, addresses) : null;
}

export async function research(ctx: ToolContext, input: ResearchInput) {
  if (!isJobMode(input.mode)) return keywordResearch(ctx, input);
  const mode: JobMode = input.mode;
  // Refused before any work, and before a place under the cap is taken.
  const refusal = mode === 'url' ? await urlRefusal(ctx, input.seed) : null;
  if (refusal) throw fieldError('body', 'seed', `${refusal}; url mode fetches public addresses only`);
  const question = input.question ?? null;
  const since = new Date(ctx.now.getTime() - RECENT_RESEARCH_MS).toISOString();
  const recent = await ctx.store.research.latest(
    ctx.siteId,
    normalizedResearchQuery(mode, input.seed, question),
    since,
  );
  if (recent)
    return { job_id: null, status: 'succeeded', data_source: recent.data_source, cached: true, ...findingsOf(recent) };

  const jobId = newJobId();
  const leaseUntil = ctx.now.getTime() + ctx.researchLeaseMs;
  const slot = await ctx.store.researchSlots.take(jobId, leaseUntil, Date.now(), lapsedPlace(ctx.store));
  ctx.measure('research_slots_in_use', slot.inflight);
  if (!slot.taken) throw concurrencyLimit();
  try {
    await queueJob(
      ctx,
      jobId,
      'research',
      { mode, query: input.seed, question, page_id: input.page_id ?? null },
      leaseUntil,
    );
  } catch (error) {
    await ctx.store.researchSlots.free(jobId);
    throw error;
  }
  const job = await awaitJob(ctx.store, jobId, ctx.siteId, input.wait_ms);
  return researchReply(job!, ctx.researchSource);
}

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
 * ends, and its place under the cap is freed. The job runs only while it holds a place: the one its
 * caller took (the lease is renewed) or one taken now; without one (analyze's jobs, or a job whose
 * lease was reclaimed after its worker died) the message is queued again to wait. A repeated
 * delivery of an ended job only frees the place (a no-op when already free). The provider calls go
 * into the usage ledger, under the tool that queued the job, before it ends. Provider failures end
 * the job as failed; a store failure throws, so the queue delivers the message again.
 */
export async function runResearchJob(
  deps: WorkerDeps,
  message: ResearchMessage,
): Promise<{ siteId: number; tool: string } | null> {
  const { store } = deps;
  const job = await store.jobs.get(message.job_id);
  if (!job) return null;
  const ran = { siteId: job.site_id, tool: job.tool };
  if (isEnded(job)) {
    await store.researchSlots.free(job.job_id);
    return ran;
  }
  const leaseUntil = Date.now() + deps.researchLeaseMs;
  if (!(await store.researchSlots.hold(job.job_id, leaseUntil))) {
    // Waiting is not dying: the job's lease goes on while its message comes back.
    if (await store.jobs.renew(job.job_id, new Date().toISOString(), leaseUntil))
      await deps.enqueue('research', message, PLACE_WAIT_SECONDS);
    return null;
  }
  if (!(await store.jobs.start(job.job_id, new Date().toISOString(), leaseUntil))) {
    await store.researchSlots.free(job.job_id);
    return ran;
  }
  const input = job.input as JobInput;
  const queryKey = normalizedResearchQuery(input.mode, input.query, input.question);
  let outcome: Parameters<Store['jobs']['finish']>[1];
  const researched = await deps.research
    .research({ mode: input.mode, query: input.query, question: input.question }, deps.meter)
    .then(
      (findings) => ({ findings }),
      (error: unknown) => ({ error }),
    );
  // Every call made goes into the ledger before the job can end or a store write fail: whoever reads the
  // ended job reads its calls, and a message delivered again makes calls of its own.
  await store.usage.record(job.site_id, job.tool, deps.meter.calls);
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
    await store.research.put(job.site_id, record, researchTerms(`${input.query} ${input.question ?? ''}`), queryKey);
    outcome = { result: { ...findingsOf(record), data_source: record.data_source, cost_usd: deps.meter.costUsd } };
  }
  // The reservation made when the job was accepted becomes what its calls were billed, before the job
  // ends: a message delivered again after a crash finds an ended job and would settle nothing.
  if (job.budget) await deps.budgetOf(job.site_id).settle(job.budget, deps.meter.costUsd, deps.meter.simulated);
  await store.jobs.finish(job.job_id, outcome, new Date().toISOString());
  if ('error' in outcome) await store.research.releaseQuery(job.site_id, queryKey, job.job_id);
  await store.researchSlots.free(job.job_id);
  return ran;
}

/** analyze researches each keyword as a web query of its own. */
const keywordResearchQuery = (keyword: string) => normalizedResearchQuery('web', keyword, null);

/**
 * Web research for each keyword (analyze): stored research of the last week answers at once; a
 * keyword no job is researching gets one, queued without a place (it waits for one in the worker
 * instead of failing); then the call waits until `deadline` for the rest. Keywords still in process
 * make the status `partial`, and the same call later collects them without queueing them again.
 */
export async function researchKeywords(ctx: ToolContext, keywords: readonly string[], deadline: number) {
  const since = new Date(ctx.now.getTime() - RECENT_RESEARCH_MS).toISOString();
  const staleBefore = new Date(ctx.now.getTime() - CLAIM_STALE_MS).toISOString();
  const read = () => ctx.store.research.queryStates(ctx.siteId, keywords.map(keywordResearchQuery));
  let states = await read();
  const stateOf = (keyword: string) => states.get(keywordResearchQuery(keyword));
  const isDone = (keyword: string) => (stateOf(keyword)?.created_at ?? '') >= since && !!stateOf(keyword)?.research_id;
  const isInProcess = (keyword: string) => !isDone(keyword) && (stateOf(keyword)?.pending_at ?? '') >= staleBefore;

  // A claim lasts as long as its job's lease: the claims of jobs that lapsed are released, and queued anew below.
  const claimed = await Promise.all(
    keywords.filter(isInProcess).map((k) => ctx.store.jobs.get(stateOf(k)!.pending_job!)),
  );
  const lapsed = await Promise.all(
    claimed.map(
      async (job) => job !== null && !isEnded(job) && (await expireLapsed(ctx.store, job)).status === 'failed',
    ),
  );
  if (lapsed.some(Boolean)) states = await read();

  const toQueue = keywords.filter((k) => !isDone(k) && !isInProcess(k));
  // A keyword the budget has no room for is listed as failed, with why; the rest of the call stands.
  const refused = new Map<string, { code: string; message: string }>();
  if (toQueue.length > 0) {
    await Promise.all(
      toQueue.map((keyword) =>
        queueKeywordResearch(ctx, keyword, staleBefore).catch((error: unknown) => {
          if (!(error instanceof ApiError) || error.code !== 'budget_exceeded') throw error;
          refused.set(keyword, { code: error.code, message: error.message });
        }),
      ),
    );
    states = await read();
  }
  const jobIds = new Map<string, string>();
  for (;;) {
    for (const k of keywords.filter(isInProcess)) jobIds.set(k, stateOf(k)!.pending_job!);
    if (!keywords.some(isInProcess) || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
    states = await read();
  }

  const records = await ctx.store.research.getMany(
    ctx.siteId,
    keywords.filter(isDone).map((k) => stateOf(k)!.research_id!),
  );
  const failed = keywords.filter((k) => !isDone(k) && !isInProcess(k));
  const failedJobs = await Promise.all(
    failed.map((k) => (jobIds.has(k) ? ctx.store.jobs.get(jobIds.get(k)!, ctx.siteId) : Promise.resolve(null))),
  );
  const factsByKeyword: Record<string, ReturnType<typeof findingsOf> & { data_source: string; created_at: string }> =
    {};
  for (const k of keywords.filter(isDone)) {
    const record = records.get(stateOf(k)!.research_id!);
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

/** Claims the keyword's query for a new job and queues it; a caller that lost the claim leaves it to the winner. */
async function queueKeywordResearch(ctx: ToolContext, keyword: string, staleBefore: string): Promise<void> {
  const jobId = newJobId();
  const queryKey = keywordResearchQuery(keyword);
  if (!(await ctx.store.research.claimQuery(ctx.siteId, queryKey, jobId, ctx.now.toISOString(), staleBefore))) return;
  try {
    await queueJob(
      ctx,
      jobId,
      'serp_landscape',
      { mode: 'web', query: keyword, question: null, page_id: null },
      ctx.now.getTime() + ctx.researchLeaseMs,
    );
  } catch (error) {
    await ctx.store.research.releaseQuery(ctx.siteId, queryKey, jobId);
    throw error;
  }
}

export async function recall(ctx: ToolContext, input: RecallInput) {
  const terms = researchTerms(input.query);
  const results = terms.length
    ? await ctx.store.research.recall(ctx.siteId, terms, {
        mode: input.mode,
        page_id: input.page_id,
        limit: input.limit,
      })
    : [];
  return { data_source: DATABASE, results, empty: results.length === 0 };
}
