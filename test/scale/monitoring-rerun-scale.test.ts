import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import { seedMonitoredSites, snapshotsOf, type SeededSite } from '../helpers/monitoring-seed';
import {
  COMPETITORS,
  countBacklinkCalls,
  dayOf,
  expectEachDomainOnce,
  FIRST_DAY,
  ledger,
  providerCalls,
  RUN_TIMEOUT_MS,
  SEED_TIMEOUT_MS,
  STRETCH_QUEUES,
  total,
} from '../helpers/monitoring-scale';
import { measureStretch, stopScheduleMidway } from '../helpers/scale';

/*
 * The daily monitoring schedule stopped midway and run again, on the local stack: every domain is
 * monitored once that day and nothing is paid twice (the day's schedule at scale is
 * monitoring-schedule-scale.test.ts).
 */

/**
 * Sites of the stopped-and-rerun test, a multiple of 500 (so the stopped schedule stops at a whole
 * block): 500, as the rerun costs as much as the day's schedule again and proves the same at any size
 * (MONITORING_RERUN_SITES=10000 runs it at the deployment's size: about 6 minutes more).
 */
const RERUN_SITES = Number(process.env.MONITORING_RERUN_SITES ?? 500);

const calls = countBacklinkCalls();

describe(`a schedule stopped midway over ${RERUN_SITES} sites`, () => {
  const PLANS = RERUN_SITES / 100;
  /** The plan messages the stopped schedule sends before it dies, and the sites they cover. */
  const STOPPED_PLANS = (PLANS * 2) / 5;
  const STOPPED_SITES = STOPPED_PLANS * 100;
  const DOMAINS = RERUN_SITES * (1 + COMPETITORS);
  let t: TestStack;
  let sites: SeededSite[];
  beforeAll(async () => {
    t = await startTestStack();
    sites = await seedMonitoredSites(t, RERUN_SITES, COMPETITORS);
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it(
    `stopped midway (the schedule dies after ${STOPPED_PLANS} of its ${PLANS} plan messages, a plan dies partway through its block) and run again, monitors every domain once that day and pays nothing twice`,
    async () => {
      const at = FIRST_DAY;
      fakeClock(at);
      const day = dayOf(at);
      const plans = t.stack.queues['monitor-plan'];
      const runs = t.stack.queues.monitor;
      // One plan's send of its block's 50th run fails, once: SQS delivers the plan again, which sends its block again.
      const restart = stopScheduleMidway(t, STOPPED_PLANS, 'monitor', STOPPED_SITES / 2 + 50);

      const before = measureStretch(t, STRETCH_QUEUES);
      await expect(t.stack.runSchedule()).rejects.toThrow('the schedule was stopped');
      await t.stack.drain();
      const stopped = before.end();
      restart();
      const stoppedCalls = {
        numbers: total(calls.numbers),
        details: total(calls.details),
        gaps: total(calls.gaps),
        all: providerCalls(calls),
      };
      // The blocks sent, their sites' domains each paid for once (the plan delivered again sent runs again).
      expect(stoppedCalls).toMatchObject({
        numbers: STOPPED_SITES * (1 + COMPETITORS),
        details: STOPPED_SITES * (1 + COMPETITORS),
        gaps: STOPPED_SITES,
      });
      expect(Math.max(...calls.numbers.values(), ...calls.details.values())).toBe(1);

      const rerun = measureStretch(t, STRETCH_QUEUES);
      await t.stack.runSchedule();
      await t.stack.drain();
      const again = rerun.end();
      console.log(
        JSON.stringify({
          monitoring_scale: 'stopped and run again',
          stopped,
          stopped_provider_calls: stoppedCalls.all,
          rerun: again,
          rerun_provider_calls: providerCalls(calls) - stoppedCalls.all,
        }),
      );

      expect(again).toMatchObject({ plan_messages: PLANS, monitor_messages: RERUN_SITES });
      // The rerun paid for the domains of the sites the stopped schedule had not reached, and nothing else.
      expect(total(calls.numbers) - stoppedCalls.numbers).toBe((RERUN_SITES - STOPPED_SITES) * (1 + COMPETITORS));
      expect(total(calls.details) - stoppedCalls.details).toBe((RERUN_SITES - STOPPED_SITES) * (1 + COMPETITORS));
      expect(total(calls.gaps) - stoppedCalls.gaps).toBe(RERUN_SITES - STOPPED_SITES);
      expectEachDomainOnce(calls, sites);
      // The plan delivered again may add a $0 cached line of numbers a site paid for; every paid line once.
      const { lines, cached } = await ledger(t, sites, day);
      expect(lines - cached).toBe(3 * DOMAINS + RERUN_SITES);
      expect(await snapshotsOf(t, sites, day)).toBe(DOMAINS);
      expect(runs.deadLetters).toEqual([]);
      expect(plans.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
