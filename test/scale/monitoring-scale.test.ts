import { performance } from 'node:perf_hooks';
import { SandboxBacklinkData } from '@cm/providers';
import { competitorDomains } from '@cm/tools';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import { freeProfile, seedMonitoredSites, snapshotsOf, type SeededSite } from '../helpers/monitoring-seed';
import { measureStretch, stopScheduleMidway } from '../helpers/scale';

/*
 * The daily monitoring schedule at the size of a deployment, 10,000 sites with 10 active competitors each,
 * on the local stack (its queues run as many workers at once as QUEUE_SETTINGS lets Lambda). Messages,
 * provider calls, DynamoDB requests and time are counted and printed. Then, on a stack of its own, a
 * schedule stopped midway and run again monitors every domain once that day and pays for nothing twice.
 */

/** Sites of the day's schedule: MONITORING_SCALE_SITES, a multiple of 100 (one plan message each). */
const SITES = Number(process.env.MONITORING_SCALE_SITES ?? 10_000);
/**
 * Sites of the stopped-and-rerun test, a multiple of 500 (so the stopped schedule stops at a whole
 * block): 500, as the rerun costs as much as the day's schedule again and proves the same at any size
 * (MONITORING_RERUN_SITES=10000 runs it at the deployment's size: about 6 minutes more).
 */
const RERUN_SITES = Number(process.env.MONITORING_RERUN_SITES ?? 500);
const COMPETITORS = 10;

/** A guard, not a goal: on an idle 2-core machine a run of 10,000 sites took 347 s. */
const RUN_TIMEOUT_MS = 900_000;
const SEED_TIMEOUT_MS = 240_000;

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.parse('2031-05-06T09:00:00.000Z');
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

let profiles: Map<string, number>;
let gaps: Map<string, number>;
const count = (calls: Map<string, number>, domain: string) => calls.set(domain, (calls.get(domain) ?? 0) + 1);
const total = (calls: Map<string, number>) => [...calls.values()].reduce((sum, n) => sum + n, 0);
beforeEach(() => {
  profiles = new Map();
  gaps = new Map();
  jest.spyOn(SandboxBacklinkData.prototype, 'profile').mockImplementation((domain, meter) => {
    count(profiles, domain);
    return freeProfile(domain, meter);
  });
  jest.spyOn(SandboxBacklinkData.prototype, 'linkGap').mockImplementation((site, _competitors, _limit, meter) => {
    count(gaps, site);
    meter.record({ provider: 'sandbox', endpoint: 'backlinks_link_gap', cost_usd: 0 });
    return Promise.resolve([]);
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

/** Ledger lines of every seeded site on `day`: one Query per site, a few at a time. */
async function ledgerLines(t: TestStack, sites: readonly SeededSite[], day: string): Promise<number> {
  const from = `${day}T00:00:00.000Z`;
  const to = new Date(Date.parse(from) + DAY_MS).toISOString();
  let lines = 0;
  for (let i = 0; i < sites.length; i += 16) {
    const reports = await Promise.all(
      sites.slice(i, i + 16).map(({ siteId }) => t.store.usage.report(siteId, from, to)),
    );
    lines += reports.reduce((sum, report) => sum + report.calls, 0);
  }
  return lines;
}

/** Each domain of every seeded site was asked for once, each site's gap once. */
function expectEachDomainOnce(sites: readonly SeededSite[]) {
  expect(profiles.size).toBe(sites.length * (1 + COMPETITORS));
  expect(Math.max(...profiles.values())).toBe(1);
  expect(gaps.size).toBe(sites.length);
  expect(Math.max(...gaps.values())).toBe(1);
  const sample = sites[sites.length - 1]!;
  for (const domain of [sample.domain, ...sample.rivals]) expect(profiles.get(domain)).toBe(1);
}

const STRETCH_QUEUES = { plan_messages: 'monitor-plan', monitor_messages: 'monitor' } as const;

describe(`a day's schedule over ${SITES} sites`, () => {
  let t: TestStack;
  let sites: SeededSite[];
  let seedMs: number;
  beforeAll(async () => {
    t = await startTestStack();
    const started = performance.now();
    sites = await seedMonitoredSites(t, SITES, COMPETITORS);
    seedMs = Math.round(performance.now() - started);
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it('seeds sites the normal read paths see: the site sequence, each site with its domain and its 10 active competitors', async () => {
    expect(await t.store.sites.lastId()).toBe(SITES);
    for (const site of [sites[0]!, sites[SITES / 2]!, sites[SITES - 1]!]) {
      expect(await t.store.sites.get(site.siteId)).toMatchObject({ site_id: site.siteId, domain: site.domain });
      expect(await competitorDomains({ siteId: site.siteId, store: t.store })).toEqual(site.rivals);
    }
  });

  it(
    `runs a day’s schedule over ${SITES} sites × ${COMPETITORS} competitors: ${SITES / 100} plan messages, ${SITES} runs, each of the ${SITES * (1 + COMPETITORS)} domains monitored and paid for once`,
    async () => {
      fakeClock(FIRST_DAY);
      const day = dayOf(FIRST_DAY);
      const recording = t.stack.dynamo.record();
      const before = measureStretch(t, STRETCH_QUEUES);
      expect(await t.stack.runSchedule()).toEqual({ sites: SITES, plans: SITES / 100 });
      await t.stack.drain();
      const run = before.end();
      recording.stop();
      const operations: Record<string, number> = {};
      for (const op of recording.operations()) operations[op] = (operations[op] ?? 0) + 1;
      const providerCalls = total(profiles) + total(gaps);
      console.log(
        JSON.stringify({
          monitoring_scale: 'schedule',
          sites: SITES,
          competitors: COMPETITORS,
          seed_ms: seedMs,
          ...run,
          dynamodb_requests_per_site: run.dynamodb_requests / SITES,
          dynamodb_operations: operations,
          provider_calls: providerCalls,
          peak_monitor_workers: t.stack.queues.monitor.peakConcurrency,
          peak_plan_workers: t.stack.queues['monitor-plan'].peakConcurrency,
        }),
      );

      expect(run.plan_messages).toBe(SITES / 100);
      expect(run.monitor_messages).toBe(SITES);
      expectEachDomainOnce(sites);
      expect(providerCalls).toBe(SITES * (1 + COMPETITORS) + SITES);
      expect(await ledgerLines(t, sites, day)).toBe(providerCalls);
      expect(await snapshotsOf(t, sites, day)).toBe(SITES * (1 + COMPETITORS));
      expect(t.stack.queues.monitor.deadLetters).toEqual([]);
      expect(t.stack.queues['monitor-plan'].deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});

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
      const stoppedCalls = { profiles: total(profiles), gaps: total(gaps) };
      // The blocks sent, their sites' domains each paid for once (the plan delivered again sent runs again).
      expect(stoppedCalls).toEqual({ profiles: STOPPED_SITES * (1 + COMPETITORS), gaps: STOPPED_SITES });
      expect(Math.max(...profiles.values())).toBe(1);

      const rerun = measureStretch(t, STRETCH_QUEUES);
      await t.stack.runSchedule();
      await t.stack.drain();
      const again = rerun.end();
      console.log(
        JSON.stringify({
          monitoring_scale: 'stopped and run again',
          stopped,
          stopped_provider_calls: stoppedCalls.profiles + stoppedCalls.gaps,
          rerun: again,
          rerun_provider_calls: total(profiles) + total(gaps) - stoppedCalls.profiles - stoppedCalls.gaps,
        }),
      );

      expect(again).toMatchObject({ plan_messages: PLANS, monitor_messages: RERUN_SITES });
      // The rerun paid for the domains of the sites the stopped schedule had not reached, and nothing else.
      expect(total(profiles) - stoppedCalls.profiles).toBe((RERUN_SITES - STOPPED_SITES) * (1 + COMPETITORS));
      expect(total(gaps) - stoppedCalls.gaps).toBe(RERUN_SITES - STOPPED_SITES);
      expectEachDomainOnce(sites);
      expect(await ledgerLines(t, sites, day)).toBe(DOMAINS + RERUN_SITES);
      expect(await snapshotsOf(t, sites, day)).toBe(DOMAINS);
      expect(runs.deadLetters).toEqual([]);
      expect(plans.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
