import { performance } from 'node:perf_hooks';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import {
  countMonitoring,
  countSerpPosts,
  DAY,
  expectEachCheckOnce,
  FIRST_DAY,
  KEYWORDS,
  ledgerOf,
  RUN_TIMEOUT_MS,
  SEED_TIMEOUT_MS,
  STRETCH_QUEUES,
} from '../helpers/rank-scale';
import { rankRowsOf, seedRankSites, type RankSite } from '../helpers/rank-seed';
import { measureStretch } from '../helpers/scale';

/*
 * The daily rank checks over 1,000 sites tracking a topic of 5 keywords each (5,000 checks; at the size
 * of a deployment, RANK_SCALE_SITES=10000, about 9 minutes: docs/architecture/queued-jobs.md#rank-tracking has
 * its figures; what a site costs does not change with the number of sites), on the local stack (its queues run as many workers at once as QUEUES lets
 * Lambda): messages, provider posts, DynamoDB requests and time are counted and printed. Monitoring's
 * messages (the same plan sends them) are counted but not run here: monitoring-schedule-scale.test.ts
 * measures them. A schedule stopped midway and run again, and sites of one niche tracking the same
 * keywords, are in rank-rerun-scale.test.ts: each file its own stacks, so jest runs them side by side.
 */

/** Sites of the day's schedule: RANK_SCALE_SITES, a multiple of 100 (one plan message each). */
const SITES = Number(process.env.RANK_SCALE_SITES ?? 1_000);

const counted = countSerpPosts();

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
          provider_posts: counted.posts,
          provider_tasks: counted.tasks.size,
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
      expect(counted.posts).toBe(SITES);
      expectEachCheckOnce(counted, sites);
      expect((await ledgerOf(t, sites)).lines).toBe(SITES * KEYWORDS);
      expect(await rankRowsOf(t, sites, DAY)).toBe(SITES * KEYWORDS);
      for (const queue of [t.stack.queues.rank, t.stack.queues['rank-collect'], t.stack.queues['monitor-plan']])
        expect(queue.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
