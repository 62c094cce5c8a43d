import { performance } from 'node:perf_hooks';
import {
  backlinkDetailPrice,
  backlinkProfilePrice,
  backlinkTrendPrice,
  BULK_TARGETS,
  bulkNumbersPrice,
  linkGapPrice,
  monitoringMonthPrice,
  SandboxBacklinkData,
} from '@cm/providers';
import { competitorDomains } from '@cm/tools';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import {
  freeDetail,
  freeNumbers,
  freeTrend,
  seedMonitoredSites,
  snapshotsOf,
  type SeededSite,
} from '../helpers/monitoring-seed';
import { measureStretch, stopScheduleMidway } from '../helpers/scale';

/*
 * The daily monitoring schedule at scale, thousands of sites with 10 active competitors each, on the
 * local stack (its queues run as many workers at once as QUEUES lets Lambda). Messages, provider
 * calls and their list price, DynamoDB requests and time are counted and printed. Then, on a stack of its
 * own, a schedule stopped midway and run again monitors every domain once that day and pays for nothing
 * twice; and sites of one niche, their competitors shared, pay each domain's numbers once a day.
 */

/**
 * Sites of the day's schedule: MONITORING_SCALE_SITES, a multiple of 100 (one plan message each). 2,500:
 * since the plan pays the numbers in bulk, a site's first day takes about twice the DynamoDB requests
 * (30.6 against 15.0: the numbers' claims, the shared cache, the plan's ledger lines); 4,000 took 497 s
 * of CI's scale suite, where 10,000 took 380 s before, and 2,500 keep CI near its 30 minutes.
 * MONITORING_SCALE_SITES=10000 runs the deployment's size.
 */
const SITES = Number(process.env.MONITORING_SCALE_SITES ?? 2500);
/**
 * Sites of the stopped-and-rerun test, a multiple of 500 (so the stopped schedule stops at a whole
 * block): 500, as the rerun costs as much as the day's schedule again and proves the same at any size
 * (MONITORING_RERUN_SITES=10000 runs it at the deployment's size: about 6 minutes more).
 */
const RERUN_SITES = Number(process.env.MONITORING_RERUN_SITES ?? 500);
const COMPETITORS = 10;
/**
 * Sites of the shared-competitors test (MONITORING_SHARED_SITES), and the niche of domains their
 * competitors are drawn from: 300 sites of 10 competitors each, two days, took 180 s on a busy 2-core
 * machine (the first day takes every site's trends and details).
 */
const SHARED_SITES = Number(process.env.MONITORING_SHARED_SITES ?? 300);
const NICHE = 300;
/** A site's competitors drawn from the niche, spread evenly, none twice for a site. */
const nicheRivals = (siteId: number, competitors: number) =>
  Array.from(
    { length: competitors },
    (_v, i) => `niche-${(siteId + i * Math.floor(NICHE / competitors)) % NICHE}.example.org`,
  );

/** A guard, not a goal: on an idle 2-core machine a run of 10,000 sites took 347 s before bulk monitoring. */
const RUN_TIMEOUT_MS = 900_000;
const SEED_TIMEOUT_MS = 240_000;

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.parse('2031-05-06T09:00:00.000Z');
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Each domain's rows in the bulk numbers requests, the rows of each request, and each domain's trend, detail and gap calls. */
let numbers: Map<string, number>;
let batches: number[];
let trends: Map<string, number>;
let details: Map<string, number>;
let gaps: Map<string, number>;
const count = (calls: Map<string, number>, domain: string) => calls.set(domain, (calls.get(domain) ?? 0) + 1);
const total = (calls: Map<string, number>) => [...calls.values()].reduce((sum, n) => sum + n, 0);
const providerCalls = () => batches.length + total(trends) + total(details) + total(gaps);
beforeEach(() => {
  numbers = new Map();
  batches = [];
  trends = new Map();
  details = new Map();
  gaps = new Map();
  jest.spyOn(SandboxBacklinkData.prototype, 'numbers').mockImplementation((domains, meter) => {
    batches.push(domains.length);
    for (const domain of domains) count(numbers, domain);
    return freeNumbers(domains, meter);
  });
  jest.spyOn(SandboxBacklinkData.prototype, 'trend').mockImplementation((domain, meter) => {
    count(trends, domain);
    return freeTrend(domain, meter);
  });
  jest.spyOn(SandboxBacklinkData.prototype, 'detail').mockImplementation((domain, backlinks, meter) => {
    count(details, domain);
    return freeDetail(domain, backlinks, meter);
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

/**
 * What the counted calls cost at DataForSEO's list prices: each bulk batch (three requests of its rows),
 * each trend, detail and gap. Before bulk monitoring, each domain a site monitored took five
 * single-target calls a day (backlinkProfilePrice, $0.105) and each site's gap one more.
 */
const listCost = () =>
  batches.reduce((sum, rows) => sum + bulkNumbersPrice(rows), 0) +
  total(trends) * backlinkTrendPrice() +
  total(details) * backlinkDetailPrice() +
  total(gaps) * linkGapPrice(100);
const costBefore = (pairs: number, sitesWithGap: number) =>
  pairs * backlinkProfilePrice() + sitesWithGap * linkGapPrice(100);
const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** Ledger lines of every seeded site on `day` (and of those, the ones answered from the shared cache): one Query per site, a few at a time. */
async function ledger(
  t: TestStack,
  sites: readonly SeededSite[],
  day: string,
): Promise<{ lines: number; cached: number }> {
  const from = `${day}T00:00:00.000Z`;
  const to = new Date(Date.parse(from) + DAY_MS).toISOString();
  const sum = { lines: 0, cached: 0 };
  for (let i = 0; i < sites.length; i += 16) {
    const reports = await Promise.all(
      sites.slice(i, i + 16).map(({ siteId }) => t.store.usage.report(siteId, from, to)),
    );
    for (const report of reports)
      for (const line of report.by_tool) {
        sum.lines += line.calls;
        sum.cached += line.cached_calls ?? 0;
      }
  }
  return sum;
}
const ledgerLines = async (t: TestStack, sites: readonly SeededSite[], day: string) =>
  (await ledger(t, sites, day)).lines;
const paidLines = async (t: TestStack, sites: readonly SeededSite[], day: string) => {
  const { lines, cached } = await ledger(t, sites, day);
  return lines - cached;
};

/** Each domain of every seeded site had its numbers, trend and detail asked for once, each site's gap once. */
function expectEachDomainOnce(sites: readonly SeededSite[]) {
  for (const calls of [numbers, trends, details]) {
    expect(calls.size).toBe(sites.length * (1 + COMPETITORS));
    expect(Math.max(...calls.values())).toBe(1);
  }
  expect(gaps.size).toBe(sites.length);
  expect(Math.max(...gaps.values())).toBe(1);
  const sample = sites[sites.length - 1]!;
  for (const domain of [sample.domain, ...sample.rivals]) expect(numbers.get(domain)).toBe(1);
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
      const domains = SITES * (1 + COMPETITORS);
      console.log(
        JSON.stringify({
          monitoring_scale: 'schedule',
          sites: SITES,
          competitors: COMPETITORS,
          seed_ms: seedMs,
          ...run,
          dynamodb_requests_per_site: run.dynamodb_requests / SITES,
          dynamodb_operations: operations,
          provider_calls: providerCalls(),
          bulk_batches: batches.length,
          list_usd_per_domain_day: usd(listCost() / domains),
          list_usd_per_domain_day_before: usd(costBefore(domains, SITES) / domains),
          peak_monitor_workers: t.stack.queues.monitor.peakConcurrency,
          peak_plan_workers: t.stack.queues['monitor-plan'].peakConcurrency,
        }),
      );

      expect(run.plan_messages).toBe(SITES / 100);
      expect(run.monitor_messages).toBe(SITES);
      expectEachDomainOnce(sites);
      // Each plan's block of 100 sites monitors 1,100 domains: 11 bulk batches of 100.
      expect(batches.length).toBe((SITES / 100) * Math.ceil((100 * (1 + COMPETITORS)) / BULK_TARGETS));
      // A line of each domain's numbers (its share of its batch), trend and detail; each site's gap.
      expect(await ledgerLines(t, sites, day)).toBe(3 * domains + SITES);
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
      const stoppedCalls = {
        numbers: total(numbers),
        details: total(details),
        gaps: total(gaps),
        all: providerCalls(),
      };
      // The blocks sent, their sites' domains each paid for once (the plan delivered again sent runs again).
      expect(stoppedCalls).toMatchObject({
        numbers: STOPPED_SITES * (1 + COMPETITORS),
        details: STOPPED_SITES * (1 + COMPETITORS),
        gaps: STOPPED_SITES,
      });
      expect(Math.max(...numbers.values(), ...details.values())).toBe(1);

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
          rerun_provider_calls: providerCalls() - stoppedCalls.all,
        }),
      );

      expect(again).toMatchObject({ plan_messages: PLANS, monitor_messages: RERUN_SITES });
      // The rerun paid for the domains of the sites the stopped schedule had not reached, and nothing else.
      expect(total(numbers) - stoppedCalls.numbers).toBe((RERUN_SITES - STOPPED_SITES) * (1 + COMPETITORS));
      expect(total(details) - stoppedCalls.details).toBe((RERUN_SITES - STOPPED_SITES) * (1 + COMPETITORS));
      expect(total(gaps) - stoppedCalls.gaps).toBe(RERUN_SITES - STOPPED_SITES);
      expectEachDomainOnce(sites);
      // The plan delivered again may add a $0 cached line of numbers a site paid for; every paid line once.
      expect(await paidLines(t, sites, day)).toBe(3 * DOMAINS + RERUN_SITES);
      expect(await snapshotsOf(t, sites, day)).toBe(DOMAINS);
      expect(runs.deadLetters).toEqual([]);
      expect(plans.deadLetters).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});

describe(`${SHARED_SITES} sites of one niche, their competitors shared, over two days`, () => {
  let t: TestStack;
  let sites: SeededSite[];
  beforeAll(async () => {
    t = await startTestStack();
    sites = await seedMonitoredSites(t, SHARED_SITES, COMPETITORS, nicheRivals);
  }, SEED_TIMEOUT_MS);
  afterAll(() => t?.stop());

  it(
    `pays each domain's numbers once a day across sites, in bulk; the trend and detail once; at most $0.10 a domain a month`,
    async () => {
      const unique = SHARED_SITES + NICHE;
      const pairs = SHARED_SITES * (1 + COMPETITORS);
      const days = [];
      for (const at of [FIRST_DAY, FIRST_DAY + DAY_MS]) {
        fakeClock(at);
        const before = { batches: batches.length, cost: listCost(), calls: providerCalls() };
        await t.stack.runSchedule();
        await t.stack.drain();
        const day = dayOf(at);
        const { lines, cached } = await ledger(t, sites, day);
        days.push({
          day,
          provider_calls: providerCalls() - before.calls,
          bulk_batches: batches.length - before.batches,
          list_usd: usd(listCost() - before.cost),
          list_usd_per_domain: usd((listCost() - before.cost) / unique),
          ledger_lines: lines,
          cached_lines: cached,
        });
        expect(await snapshotsOf(t, sites, day)).toBe(pairs);
        // Every site's numbers of every domain it monitors: paid once across sites, the rest from the cache.
        expect(lines - cached).toBe(unique + (day === dayOf(FIRST_DAY) ? 2 * pairs + SHARED_SITES : 0));
        expect(cached).toBe(pairs - unique);
      }
      const [first, second] = days;
      console.log(
        JSON.stringify({
          monitoring_scale: 'shared competitors',
          sites: SHARED_SITES,
          niche: NICHE,
          domains: unique,
          site_domain_pairs: pairs,
          days,
          list_usd_a_day_before: usd(costBefore(pairs, SHARED_SITES)),
          month_price: { site: monitoringMonthPrice('site'), competitor: monitoringMonthPrice('competitor') },
        }),
      );
      // Each domain's numbers once a day, in full batches but for each block's last.
      expect([...numbers.values()].every((n) => n === 2)).toBe(true);
      expect(numbers.size).toBe(unique);
      expect(trends.size).toBe(unique);
      expect(total(trends)).toBe(pairs);
      // The second day: the numbers alone (the trend extended, the detail a day old).
      expect(second!.provider_calls).toBe(second!.bulk_batches);
      // The goal: at most $0.10 a monitored domain a month, its numbers every day.
      expect(second!.list_usd_per_domain * 30).toBeLessThanOrEqual(0.1);
      expect(first!.list_usd).toBeLessThan(costBefore(pairs, SHARED_SITES));
    },
    RUN_TIMEOUT_MS,
  );
});
