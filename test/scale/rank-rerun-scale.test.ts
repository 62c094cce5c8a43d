import { RankStore } from '@cm/store';
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
import { measureStretch, stopScheduleMidway } from '../helpers/scale';

/*
 * The daily rank checks on the local stack, each on a stack of its own: a schedule stopped midway and
 * run again checks every keyword once that day and pays for nothing twice; and sites of one niche
 * tracking the same keywords post each keyword once between them (the day's schedule at scale is
 * rank-scale.test.ts).
 */

/** Sites of the stopped-and-rerun test, a multiple of 500 (RANK_RERUN_SITES). */
const RERUN_SITES = Number(process.env.RANK_RERUN_SITES ?? 500);
/** Sites of the shared-keywords test, a multiple of 100 (RANK_SHARED_SITES), NICHE to a group tracking the same keywords. */
const SHARED_SITES = Number(process.env.RANK_SHARED_SITES ?? 100);
const NICHE = 10;

const counted = countSerpPosts();

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
      const stoppedTasks = counted.tasks.size;
      expect(stoppedTasks).toBe(STOPPED_SITES * KEYWORDS);
      expect(Math.max(...counted.tasks.values())).toBe(1);

      const rerun = measureStretch(t, STRETCH_QUEUES);
      await t.stack.runSchedule(new Date(FIRST_DAY));
      await t.stack.drain();
      const again = rerun.end();
      console.log(
        JSON.stringify({ rank_scale: 'stopped and run again', stopped, rerun: again, stopped_tasks: stoppedTasks }),
      );

      expect(again).toMatchObject({ plan_messages: PLANS, rank_messages: RERUN_SITES });
      // The rerun posted for the sites the stopped schedule had not reached, and nothing else.
      expect(counted.tasks.size - stoppedTasks).toBe((RERUN_SITES - STOPPED_SITES) * KEYWORDS);
      expect(again.collect_messages).toBe(RERUN_SITES - STOPPED_SITES);
      expectEachCheckOnce(counted, sites);
      expect((await ledgerOf(t, sites)).lines).toBe(RERUN_SITES * KEYWORDS);
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
          provider_posts: counted.posts,
          provider_tasks: counted.tasks.size,
          ledger,
        }),
      );
      // One task per niche's keyword, each posted once; one collect message or more per site (its posts, the checks it awaits).
      expect(counted.tasks.size).toBe((SHARED_SITES / NICHE) * KEYWORDS);
      expect(Math.max(...counted.tasks.values())).toBe(1);
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
