import {
  backlinkDetailPrice,
  backlinkProfilePrice,
  backlinkTrendPrice,
  bulkNumbersPrice,
  linkGapPrice,
  SandboxBacklinkData,
} from '@cm/providers';
import { freeDetail, freeNumbers, freeTrend, type SeededSite } from './monitoring-seed';
import type { TestStack } from './local';

/*
 * What the monitoring scale files share (test/scale/monitoring-*-scale.test.ts, one stack each, so jest
 * runs them side by side): each backlink call of the sandbox counted and answered free, what the counted
 * calls cost at list prices, and the seeded sites' ledger of a day.
 */

export const COMPETITORS = 10;
export const DAY_MS = 86_400_000;
export const FIRST_DAY = Date.parse('2031-05-06T09:00:00.000Z');
export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
/** A guard, not a goal: on an idle 2-core machine a run of 10,000 sites took 347 s before bulk monitoring. */
export const RUN_TIMEOUT_MS = 900_000;
export const SEED_TIMEOUT_MS = 240_000;
export const STRETCH_QUEUES = { plan_messages: 'monitor-plan', monitor_messages: 'monitor' } as const;

/** Each domain's rows in the bulk numbers requests, the rows of each request, and each domain's trend, detail and gap calls. */
interface BacklinkCalls {
  numbers: Map<string, number>;
  batches: number[];
  trends: Map<string, number>;
  details: Map<string, number>;
  gaps: Map<string, number>;
}

const count = (calls: Map<string, number>, domain: string) => calls.set(domain, (calls.get(domain) ?? 0) + 1);
export const total = (calls: Map<string, number>) => [...calls.values()].reduce((sum, n) => sum + n, 0);
export const providerCalls = (c: BacklinkCalls) =>
  c.batches.length + total(c.trends) + total(c.details) + total(c.gaps);

/**
 * The file's backlink calls, counted afresh for each test (its fields replaced before each) and answered
 * free, as the sandbox records them; the spies are put back after each test.
 */
export function countBacklinkCalls(): BacklinkCalls {
  const calls: BacklinkCalls = {
    numbers: new Map(),
    batches: [],
    trends: new Map(),
    details: new Map(),
    gaps: new Map(),
  };
  beforeEach(() => {
    Object.assign(calls, { numbers: new Map(), batches: [], trends: new Map(), details: new Map(), gaps: new Map() });
    jest.spyOn(SandboxBacklinkData.prototype, 'numbers').mockImplementation((domains, meter) => {
      calls.batches.push(domains.length);
      for (const domain of domains) count(calls.numbers, domain);
      return freeNumbers(domains, meter);
    });
    jest.spyOn(SandboxBacklinkData.prototype, 'trend').mockImplementation((domain, meter) => {
      count(calls.trends, domain);
      return freeTrend(domain, meter);
    });
    jest.spyOn(SandboxBacklinkData.prototype, 'detail').mockImplementation((domain, backlinks, meter) => {
      count(calls.details, domain);
      return freeDetail(domain, backlinks, meter);
    });
    jest.spyOn(SandboxBacklinkData.prototype, 'linkGap').mockImplementation((site, _competitors, _limit, meter) => {
      count(calls.gaps, site);
      meter.record({ provider: 'sandbox', endpoint: 'backlinks_link_gap', cost_usd: 0 });
      return Promise.resolve([]);
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });
  return calls;
}

/**
 * What the counted calls cost at DataForSEO's list prices: each bulk batch (three requests of its rows),
 * each trend, detail and gap. Before bulk monitoring, each domain a site monitored took five
 * single-target calls a day (backlinkProfilePrice, $0.105) and each site's gap one more.
 */
export const listCost = (c: BacklinkCalls) =>
  c.batches.reduce((sum, rows) => sum + bulkNumbersPrice(rows), 0) +
  total(c.trends) * backlinkTrendPrice() +
  total(c.details) * backlinkDetailPrice() +
  total(c.gaps) * linkGapPrice(100);
export const costBefore = (pairs: number, sitesWithGap: number) =>
  pairs * backlinkProfilePrice() + sitesWithGap * linkGapPrice(100);
export const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** Ledger lines of every seeded site on `day` (and of those, the ones answered from the shared cache): one Query per site, a few at a time. */
export async function ledger(
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

/** Each domain of every seeded site had its numbers, trend and detail asked for once, each site's gap once. */
export function expectEachDomainOnce(c: BacklinkCalls, sites: readonly SeededSite[]) {
  for (const calls of [c.numbers, c.trends, c.details]) {
    expect(calls.size).toBe(sites.length * (1 + COMPETITORS));
    expect(Math.max(...calls.values())).toBe(1);
  }
  expect(c.gaps.size).toBe(sites.length);
  expect(Math.max(...c.gaps.values())).toBe(1);
  const sample = sites[sites.length - 1]!;
  for (const domain of [sample.domain, ...sample.rivals]) expect(c.numbers.get(domain)).toBe(1);
}
