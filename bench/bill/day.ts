import { performance } from 'node:perf_hooks';
import { SPEC_LIMITS, type FunctionName, type WorkerName } from '@cm/contract';
import { resetServices } from '@cm/runtime';
import { article, TEST_REQUEST_TIMEOUT_MS, type TestStack } from '../../test/helpers/local';
import { seedMonitoredSites } from '../../test/helpers/monitoring-seed';
import { seedRankSites } from '../../test/helpers/rank-seed';
import { countCapacity, type Capacity } from './capacity';

/*
 * A simulated day of N sites on the local stack, through the real handlers: the daily schedule
 * (monitoring and rank checks, every queue drained), each site's research calls over HTTP (their
 * workers drained), and a few sites' publishes and page views over HTTP. It counts what AWS and the
 * providers bill for: API requests and each function's invocations and milliseconds, SQS messages,
 * DynamoDB's capacity units, the bytes of the pages served, and each site's ledger of the day.
 */

/** What each site does in a day. */
export interface Workload {
  name: string;
  competitors: number;
  keywords: number;
  research: number;
  publishes: number;
  views: number;
}

/** The issue's workload, and the same with no competitors. */
export const WORKLOADS: readonly Workload[] = [
  { name: '10 competitors', competitors: 10, keywords: 50, research: 5, publishes: 10, views: 100 },
  { name: 'no competitors', competitors: 0, keywords: 50, research: 5, publishes: 10, views: 100 },
];

/**
 * How sites share public data, as sites in one niche do: sites come in niches of 10; a niche has 20
 * competitor domains, 100 keywords and 10 research questions, and its site at place p (0–9) monitors
 * competitors 2p … 2p+9, tracks keywords 10p … 10p+49 and asks questions p … p+4 (all modulo the
 * pool), so each competitor, keyword and question of a niche is shared by 5 of its 10 sites. No
 * two niches share anything, so the shared share of a bill is the same at any number of whole niches.
 */
export const NICHE = { sites: 10, competitors: 20, keywords: 100, questions: 10 } as const;

const nicheOf = (siteId: number) => ({
  niche: Math.floor((siteId - 1) / NICHE.sites),
  place: (siteId - 1) % NICHE.sites,
});
const picks = (start: number, count: number, pool: number) =>
  Array.from({ length: count }, (_v, i) => (start + i) % pool);

const rivalsOf = (siteId: number, competitors: number) => {
  const { niche, place } = nicheOf(siteId);
  return picks(2 * place, competitors, NICHE.competitors).map((k) => `rival-${niche}-${k}.example.net`);
};
const keywordsOf = (siteId: number, keywords: number) => {
  const { niche, place } = nicheOf(siteId);
  return picks(10 * place, keywords, NICHE.keywords).map((k) => `niche ${niche} keyword ${k}`);
};
const questionsOf = (siteId: number, questions: number) => {
  const { niche, place } = nicheOf(siteId);
  return picks(place, questions, NICHE.questions).map((k) => `niche ${niche} question ${k}`);
};

/** One function's invocations in the day, and the milliseconds they ran (as measured here). */
interface Invoked {
  invocations: number;
  ms: number;
}

/** A tool's lines in the sites' ledgers of the day. */
interface LedgerLine {
  calls: number;
  /** Of `calls`, those answered from the shared cache of public data: no provider call, $0. */
  cached_calls: number;
  cost_usd: number;
}

export interface Day {
  sites: number;
  workload: Workload;
  /** Sites that published and were viewed (their share is scaled to every site: it is linear). */
  sampledSites: number;
  /**
   * Research calls answered with a job (not from storage or the shared cache): on AWS each waits for its
   * job, holding a function meanwhile (here they ask with wait_ms 0, so `api` has none of that wait).
   */
  researchJobs: number;
  /** Requests through API Gateway, by the function that answered them (all sites, sampled ones scaled). */
  api: Partial<Record<FunctionName, Invoked>>;
  workers: Record<WorkerName | 'monitor-schedule', Invoked>;
  sqsMessages: number;
  capacity: Capacity;
  pageViews: number;
  pageBytes: number;
  /** The day's ledger of every site, by tool: a day of monitoring and rank checks after their first. */
  ledger: Record<string, LedgerLine>;
  /**
   * The ledger of the scheduled work's first day (the day before `ledger`'s), by tool: every domain's
   * trend and detail taken, as a domain's detail is about once a month (providers' monitoringMonthPrice).
   */
  firstDay: Record<string, LedgerLine>;
  /**
   * Messages a worker failed and SQS delivered again: on a machine too busy to open a connection in
   * time, a run that fails after its provider calls loses their ledger lines (the run again finds its
   * claims taken), so the ledger misses them. Not 0: the day's provider figures are too low.
   */
  failedDeliveries: number;
}

/** Sites that publish and are viewed in the simulated day: a few, as those costs grow with each site alone. */
const SAMPLED_SITES = 5;

async function timed<T>(into: Invoked, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    into.invocations++;
    into.ms += performance.now() - started;
  }
}

/** The research calls a deployment runs at once (a 429 past them). */
const RESEARCH_AT_ONCE = SPEC_LIMITS.concurrentResearch;

/** Runs `count` promise makers, `width` at a time. */
async function inBatches(count: number, width: number, make: (i: number) => Promise<void>) {
  for (let i = 0; i < count; i += width)
    await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_v, j) => make(i + j)));
}

/**
 * Simulates a day of `sites` sites (a multiple of NICHE.sites) doing `workload` on `t`, a fresh test
 * stack started with SANDBOX_LIST_PRICES=1. The stack's sites 1…`sites` are seeded first (the demo
 * site 1 is written over).
 */
export async function simulateDay(t: TestStack, sites: number, workload: Workload): Promise<Day> {
  if (sites % NICHE.sites !== 0) throw new Error(`Simulate whole niches: a multiple of ${NICHE.sites} sites`);
  const since = new Date().toISOString().slice(0, 10);
  await seedMonitoredSites(t, sites, workload.competitors, rivalsOf);
  const seeded = await seedRankSites(t, sites, workload.keywords, since, keywordsOf);
  const keys: string[] = [];
  for (const site of seeded) keys.push(await t.store.sites.issueKey(site.siteId));
  // The scheduled work's first day, before anything is counted: each domain's trend and first detail.
  // The counted day is the next one, whose monitoring extends what the first took.
  const firstFrom = new Date().toISOString();
  await t.stack.runSchedule();
  await t.stack.drain();
  const firstDay = await ledgerOf(t, sites, firstFrom, new Date(Date.now() + 1).toISOString());

  // From here every request of the handlers goes through the counting proxy.
  const proxy = await countCapacity(t.stack.dynamo.endpoint);
  const saved = { endpoint: process.env.DYNAMODB_ENDPOINT, connect: process.env.DYNAMODB_CONNECTION_TIMEOUT_MS };
  process.env.DYNAMODB_ENDPOINT = proxy.url;
  // A machine busy with the day's work takes more than production's second to open a connection at times;
  // a run failed for it would lose its provider calls' ledger lines (see failedDeliveries).
  process.env.DYNAMODB_CONNECTION_TIMEOUT_MS = String(TEST_REQUEST_TIMEOUT_MS);
  resetServices();
  const queues = Object.values(t.stack.queues);
  const before = new Map(
    queues.map((q) => [
      q.name,
      { sent: q.sent, invocations: q.invocations, ms: q.invokedMs, failed: q.failedDeliveries },
    ]),
  );
  const from = new Date().toISOString();
  const api: Day['api'] = {};
  const call = (fn: FunctionName, method: string, path: string, key: string, body?: unknown) =>
    timed((api[fn] ??= { invocations: 0, ms: 0 }), () => t.call(method, path, body, { key }));
  const schedule: Invoked = { invocations: 0, ms: 0 };
  let pageBytes = 0;
  let pageViews = 0;
  let researchJobs = 0;
  try {
    await timed(schedule, () => t.stack.runSchedule(new Date(Date.now() + 86_400_000)));
    await t.stack.drain();

    // Research runs at most RESEARCH_AT_ONCE calls at a time on a deployment: a day's calls come a batch at
    // a time, each site's first question, then each one's second…, so no two in a batch are the same (spread
    // over a day, identical questions of two sites rarely run at once).
    const asks = Array.from({ length: workload.research }, (_v, j) =>
      seeded.map((site, i) => ({ i, seed: questionsOf(site.siteId, workload.research)[j]! })),
    ).flat();
    for (let n = 0; n < asks.length; n += RESEARCH_AT_ONCE) {
      await Promise.all(
        asks.slice(n, n + RESEARCH_AT_ONCE).map(async ({ i, seed }) => {
          const reply = await call('research', 'POST', '/v1/tools/research', keys[i]!, {
            mode: 'web',
            seed,
            wait_ms: 0,
          });
          if (reply.status >= 400) throw new Error(`research answered ${reply.status}: ${reply.text}`);
          const answer: unknown = reply.body;
          if (typeof answer === 'object' && answer !== null && 'job_id' in answer && answer.job_id) researchJobs++;
        }),
      );
      await t.stack.drain();
    }

    const sampled = Math.min(SAMPLED_SITES, sites);
    await inBatches(sampled, sampled, async (i) => {
      const siteId = seeded[i]!.siteId;
      for (let n = 0; n < workload.publishes; n++) {
        const reply = await call('publish', 'POST', '/articles', keys[i]!, article(`post-${n}`));
        if (reply.status !== 201) throw new Error(`publish answered ${reply.status}: ${reply.text}`);
      }
      for (let n = 0; n < workload.views; n++) {
        const page = await call('visitor', 'GET', `/sites/${siteId}/articles/post-${n % workload.publishes}`, '');
        if (page.status !== 200) throw new Error(`a page view answered ${page.status}`);
        pageBytes += Buffer.byteLength(page.text);
        pageViews++;
      }
    });
    await t.stack.drain();
    // Publishes and views ran on `sampled` sites: their requests, like every site's, scale to all.
    for (const fn of ['publish', 'visitor'] as const) {
      const invoked = api[fn];
      if (invoked)
        api[fn] = { invocations: (invoked.invocations * sites) / sampled, ms: (invoked.ms * sites) / sampled };
    }
    pageBytes = (pageBytes * sites) / sampled;
    pageViews = (pageViews * sites) / sampled;

    const workers = Object.fromEntries(
      queues.map((q) => {
        const then = before.get(q.name)!;
        return [q.name, { invocations: q.invocations - then.invocations, ms: q.invokedMs - then.ms }];
      }),
    ) as Day['workers'];
    workers['monitor-schedule'] = schedule;
    const sqsMessages = queues.reduce((sum, q) => sum + q.sent - before.get(q.name)!.sent, 0);
    const failedDeliveries = queues.reduce((sum, q) => sum + q.failedDeliveries - before.get(q.name)!.failed, 0);
    const capacity = proxy.capacity();
    const to = new Date(Date.now() + 1).toISOString();
    return {
      sites,
      workload,
      sampledSites: sampled,
      researchJobs,
      api,
      workers,
      sqsMessages,
      capacity,
      pageViews,
      pageBytes,
      ledger: await ledgerOf(t, sites, from, to),
      firstDay,
      failedDeliveries,
    };
  } finally {
    process.env.DYNAMODB_ENDPOINT = saved.endpoint;
    if (saved.connect === undefined) delete process.env.DYNAMODB_CONNECTION_TIMEOUT_MS;
    else process.env.DYNAMODB_CONNECTION_TIMEOUT_MS = saved.connect;
    resetServices();
    await proxy.close();
  }
}

/** Every site's ledger from `from` to `to`, summed by tool: one report per site, a few at a time. */
async function ledgerOf(t: TestStack, sites: number, from: string, to: string): Promise<Record<string, LedgerLine>> {
  const ledger: Record<string, LedgerLine> = {};
  await inBatches(sites, 16, async (i) => {
    const report = await t.store.usage.report(i + 1, from, to);
    for (const line of report.by_tool) {
      const sum = (ledger[line.tool] ??= { calls: 0, cached_calls: 0, cost_usd: 0 });
      sum.calls += line.calls;
      sum.cached_calls += line.cached_calls ?? 0;
      sum.cost_usd += line.cost_usd;
    }
  });
  return ledger;
}
