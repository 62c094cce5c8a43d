import { monitoringMonthPrice } from '@cm/providers';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import { seedMonitoredSites, snapshotsOf, type SeededSite } from '../helpers/monitoring-seed';
import {
  COMPETITORS,
  costBefore,
  countBacklinkCalls,
  DAY_MS,
  dayOf,
  FIRST_DAY,
  ledger,
  listCost,
  providerCalls,
  RUN_TIMEOUT_MS,
  SEED_TIMEOUT_MS,
  total,
  usd,
} from '../helpers/monitoring-scale';

/*
 * Sites of one niche, their competitors shared, on the local stack: each domain's numbers are paid once
 * a day across sites, in bulk (the day's schedule at scale is monitoring-schedule-scale.test.ts).
 */

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

const calls = countBacklinkCalls();

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
        const before = { batches: calls.batches.length, cost: listCost(calls), calls: providerCalls(calls) };
        await t.stack.runSchedule();
        await t.stack.drain();
        const day = dayOf(at);
        const { lines, cached } = await ledger(t, sites, day);
        days.push({
          day,
          provider_calls: providerCalls(calls) - before.calls,
          bulk_batches: calls.batches.length - before.batches,
          list_usd: usd(listCost(calls) - before.cost),
          list_usd_per_domain: usd((listCost(calls) - before.cost) / unique),
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
      expect([...calls.numbers.values()].every((n) => n === 2)).toBe(true);
      expect(calls.numbers.size).toBe(unique);
      expect(calls.trends.size).toBe(unique);
      expect(total(calls.trends)).toBe(pairs);
      // The second day: the numbers alone (the trend extended, the detail a day old).
      expect(second!.provider_calls).toBe(second!.bulk_batches);
      // The goal: at most $0.10 a monitored domain a month, its numbers every day.
      expect(second!.list_usd_per_domain * 30).toBeLessThanOrEqual(0.1);
      expect(first!.list_usd).toBeLessThan(costBefore(pairs, SHARED_SITES));
    },
    RUN_TIMEOUT_MS,
  );
});
