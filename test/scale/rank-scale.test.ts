import { performance } from 'node:perf_hooks';
import { SandboxSerpQueue, type SerpTask } from '@cm/providers';
import { RankStore } from '@cm/store';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import { rankRowsOf, seedRankSites, type RankSite } from '../helpers/rank-seed';
import { measureStretch, stopScheduleMidway } from '../helpers/scale';

/*
 * The daily rank checks over 1,000 sites tracking a topic of 5 keywords each (5,000 checks; at the size
 * of a deployment, RANK_SCALE_SITES=10000, about 9 minutes: docs/architecture/queued-jobs.md#rank-tracking has
 * its figures; what a site costs does not change with the number of sites), on the local stack (its queues run as many workers at once as QUEUES lets
 * Lambda): messages, provider posts, DynamoDB requests and time are counted and printed. Monitoring's
 * messages (the same plan sends them) are counted but not run here: monitoring-scale.test.ts measures
 * them. Then, on a stack of its own, a schedule stopped midway and run again checks every keyword once
 * that day and pays for nothing twice; and on another, sites of one niche tracking the same keywords
 * post each keyword once between them.
 */

/** Sites of the day's schedule: RANK_SCALE_SITES, a multiple of 100 (one plan message each). */
const SITES = Number(process.env.RANK_SCALE_SITES ?? 1_000);
/** Keywords each site tracks: RANK_SCALE_KEYWORDS. */
const KEYWORDS = Number(process.env.RANK_SCALE_KEYWORDS ?? 5);
/** Sites of the stopped-and-rerun test, a multiple of 500 (RANK_RERUN_SITES). */
const RERUN_SITES = Number(process.env.RANK_RERUN_SITES ?? 500);
/** Sites of the shared-keywords test, a multiple of 100 (RANK_SHARED_SITES), NICHE to a group tracking the same keywords. */
const SHARED_SITES = Number(process.env.RANK_SHARED_SITES ?? 100);
const NICHE = 10;

const RUN_TIMEOUT_MS = 900_000;
const SEED_TIMEOUT_MS = 240_000;
const FIRST_DAY = Date.parse('2031-05-06T09:00:00.000Z');
const DAY = new Date(FIRST_DAY).toISOString().slice(0, 10);

/** Tasks posted per (site, keyword, day), by tag, and the posts. */
let tasks: Map<string, number>;
let posts: number;
beforeEach(() => {
  tasks = new Map();
  posts = 0;
  const post = SandboxSerpQueue.prototype.post;
  jest.spyOn(SandboxSerpQueue.prototype, 'post').mockImplementation(function (
    this: SandboxSerpQueue,
    sent: readonly SerpTask[],
    meter,
  ) {
    posts++;
    for (const task of sent) tasks.set(task.tag, (tasks.get(task.tag) ?? 0) + 1);
    return post.call(this, sent, meter);
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

/** Monitoring's runs are counted, not run: the plan sends them beside the rank checks. */
function countMonitoring(t: TestStack): { count: () => number } {
  let sent = 0;
  jest.spyOn(t.stack.queues.monitor, 'send').mockImplementation(() => {
    sent++;
    return Promise.resolve();
  });
  return { count: () => sent };
}

/** Ledger lines of rank checks of every seeded site on the day (`cached`: of them, those the shared cache answered): one Query per site, a few at a time. */
async function ledgerOf(t: TestStack, sites: readonly RankSite[]): Promise<{ lines: number; cached: number }> {
  const ledger = { lines: 0, cached: 0 };
  for (let i = 0; i < sites.length; i += 16) {
    const reports = await Promise.all(
      sites
        .slice(i, i + 16)
        .map(({ siteId }) => t.store.usage.report(siteId, `${DAY}T00:00:00.000Z`, `${DAY}T23:59:59.999Z`)),
    );
    for (const line of reports.flatMap((report) => report.by_tool.filter((l) => l.tool === 'rank_tracking'))) {
      ledger.lines += line.calls;
      ledger.cached += line.cached_calls ?? 0;
    }
  }
  return ledger;
}
const ledgerLines = async (t: TestStack, sites: readonly RankSite[]) => (await ledgerOf(t, sites)).lines;

const STRETCH_QUEUES = {
  plan_messages: 'monitor-plan',
  rank_messages: 'rank',
  collect_messages: 'rank-collect',
} as const;

function expectEachCheckOnce(sites: readonly RankSite[]) {
  expect(tasks.size).toBe(sites.length * KEYWORDS);
  expect(Math.max(...tasks.values())).toBe(1);
}

describe(`a day's rank checks over ${SITES} sites`, () => {
  let t: TestStack;
  let sites: RankSite[];
  let seedMs: number;
  beforeAll(async () => {
    t = await startTestStack();
    const started = performance.now();
    sites = await seedRankSites(t, SITES, KEYWORDS, DAY);
    seedMs = Math.round(performance.now() - started);
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it(
    `checks ${SITES} sites × ${KEYWORDS} keywords: ${SITES / 100} plan messages, ${SITES} rank runs of one post each, each keyword checked and paid for once`,
    async () => {
      fakeClock(FIRST_DAY);
      const monitoring = countMonitoring(t);
      const recording = t.stack.dynamo.record();
      const before = measureStretch(t, STRETCH_QUEUES);
      expect(await t.stack.runSchedule(new Date(FIRST_DAY))).toEqual({ sites: SITES, plans: SITES / 100 });
      await t.stack.drain();
      const run = before.end();
      recording.stop();
      const operations: Record<string, number> = {};
      for (const op of recording.operations()) operations[op] = (operations[op] ?? 0) + 1;
      console.log(
        JSON.stringify({
          rank_scale: 'schedule',
          sites: SITES,
          keywords_per_site: KEYWORDS,
          seed_ms: seedMs,
          ...run,
          dynamodb_requests_per_check: run.dynamodb_requests / (SITES * KEYWORDS),
          dynamodb_requests_per_site: run.dynamodb_requests / SITES,
          dynamodb_operations: operations,
          provider_posts: posts,
          provider_tasks: tasks.size,
          monitor_messages_held: monitoring.count(),
          peak_rank_workers: t.stack.queues.rank.peakConcurrency,
          peak_collect_workers: t.stack.queues['rank-collect'].peakConcurrency,
        }),
      );
      expect(run).toMatchObject({ plan_messages: SITES / 100, rank_messages: SITES, collect_messages: SITES });
      // A site costs the same requests however many sites there are: its rank run 25 at 5 keywords (its
      // scope's last_run one of them; its SERPs' shared claims 5, their read and their write in the cache
      // 2), and in the plan that queues it, its own domain's daily numbers (the read of its competitors, and
      // its share of the plan's batched reads and writes of the shared cache and the ledger, about 3); and
      // the schedule's one read.
      const rankRuns = operations.UpdateItem ?? 0;
      expect(rankRuns).toBe(SITES);
      expect(run.dynamodb_requests / SITES).toBeGreaterThanOrEqual(25);
      expect(run.dynamodb_requests / SITES).toBeLessThan(28.1);
      expect(monitoring.count()).toBe(SITES);
      expect(posts).toBe(SITES);
      expectEachCheckOnce(sites);
      expect(await ledgerLines(t, sites)).toBe(SITES * KEYWORDS);
      expect(await rankRowsOf(t, sites, DAY)).toBe(SITES * KEYWORDS);
      for (const queue of [t.stack.queues.rank, t.stack.queues['rank-collect'], t.stack.queues['monitor-plan']])
        expect(queue.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});

describe(`a schedule stopped midway over ${RERUN_SITES} sites`, () => {
  const PLANS = RERUN_SITES / 100;
  const STOPPED_PLANS = (PLANS * 2) / 5;
  const STOPPED_SITES = STOPPED_PLANS * 100;
  /** The claim write that fails, once: one in the stopped schedule's second half. */
  const FAILED_CLAIM = (STOPPED_SITES * KEYWORDS) / 2 + 3;
  let t: TestStack;
  let sites: RankSite[];
  beforeAll(async () => {
    t = await startTestStack();
    sites = await seedRankSites(t, RERUN_SITES, KEYWORDS, DAY);
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it(
    `stopped midway (the schedule dies after ${STOPPED_PLANS} of its ${PLANS} plan messages, a plan partway through its block, a site's run at a claim) and run again, checks every keyword once that day and pays nothing twice`,
    async () => {
      fakeClock(FIRST_DAY);
      countMonitoring(t);
      const plans = t.stack.queues['monitor-plan'];
      const ranks = t.stack.queues.rank;
      // One plan's send of its block's 50th rank run fails too, once.
      const restart = stopScheduleMidway(t, STOPPED_PLANS, 'rank', STOPPED_SITES / 2 + 50);
      // One site's run fails writing a claim, once: the claims it took go back, and the message is delivered again.
      const claim = RankStore.prototype.claim;
      let claims = 0;
      const claiming = jest.spyOn(RankStore.prototype, 'claim').mockImplementation(function (this: RankStore, c, now) {
        if (++claims === FAILED_CLAIM) return Promise.reject(new Error('the table did not answer'));
        return claim.call(this, c, now);
      });

      const before = measureStretch(t, STRETCH_QUEUES);
      await expect(t.stack.runSchedule(new Date(FIRST_DAY))).rejects.toThrow('the schedule was stopped');
      await t.stack.drain();
      const stopped = before.end();
      restart();
      claiming.mockRestore();
      const stoppedTasks = tasks.size;
      expect(stoppedTasks).toBe(STOPPED_SITES * KEYWORDS);
      expect(Math.max(...tasks.values())).toBe(1);

      const rerun = measureStretch(t, STRETCH_QUEUES);
      await t.stack.runSchedule(new Date(FIRST_DAY));
      await t.stack.drain();
      const again = rerun.end();
      console.log(
        JSON.stringify({ rank_scale: 'stopped and run again', stopped, rerun: again, stopped_tasks: stoppedTasks }),
      );

      expect(again).toMatchObject({ plan_messages: PLANS, rank_messages: RERUN_SITES });
      // The rerun posted for the sites the stopped schedule had not reached, and nothing else.
      expect(tasks.size - stoppedTasks).toBe((RERUN_SITES - STOPPED_SITES) * KEYWORDS);
      expect(again.collect_messages).toBe(RERUN_SITES - STOPPED_SITES);
      expectEachCheckOnce(sites);
      expect(await ledgerLines(t, sites)).toBe(RERUN_SITES * KEYWORDS);
      expect(await rankRowsOf(t, sites, DAY)).toBe(RERUN_SITES * KEYWORDS);
      expect(ranks.deadLetters).toEqual([]);
      expect(plans.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});

describe(`a day's rank checks over ${SHARED_SITES} sites, ${NICHE} to a niche tracking the same keywords`, () => {
  let t: TestStack;
  let sites: RankSite[];
  beforeAll(async () => {
    t = await startTestStack();
    sites = await seedRankSites(t, SHARED_SITES, KEYWORDS, DAY, (siteId, count) =>
      Array.from({ length: count }, (_v, i) => `keyword ${i + 1} of niche ${Math.ceil(siteId / NICHE)}`),
    );
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it(
    `posts each niche's keyword once (${(SHARED_SITES / NICHE) * KEYWORDS} tasks for ${SHARED_SITES * KEYWORDS} checks): its first site pays, every other site's check is a $0 cached line, each site has its rows`,
    async () => {
      fakeClock(FIRST_DAY);
      countMonitoring(t);
      const before = measureStretch(t, STRETCH_QUEUES);
      await t.stack.runSchedule(new Date(FIRST_DAY));
      await t.stack.drain();
      const run = before.end();
      const ledger = await ledgerOf(t, sites);
      console.log(
        JSON.stringify({
          rank_scale: 'shared keywords',
          sites: SHARED_SITES,
          niche: NICHE,
          ...run,
          dynamodb_requests_per_site: run.dynamodb_requests / SHARED_SITES,
          provider_posts: posts,
          provider_tasks: tasks.size,
          ledger,
        }),
      );
      // One task per niche's keyword, each posted once; one collect message or more per site (its posts, the checks it awaits).
      expect(tasks.size).toBe((SHARED_SITES / NICHE) * KEYWORDS);
      expect(Math.max(...tasks.values())).toBe(1);
      expect(run).toMatchObject({ plan_messages: SHARED_SITES / 100, rank_messages: SHARED_SITES });
      // A line per check; the paid ones are the tasks.
      expect(ledger).toEqual({
        lines: SHARED_SITES * KEYWORDS,
        cached: (SHARED_SITES - SHARED_SITES / NICHE) * KEYWORDS,
      });
      expect(await rankRowsOf(t, sites, DAY)).toBe(SHARED_SITES * KEYWORDS);
      for (const queue of [t.stack.queues.rank, t.stack.queues['rank-collect']]) expect(queue.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
