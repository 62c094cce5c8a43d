import { LIMITS } from '@cm/contract';
import { UsageStore } from '@cm/store';
import { simulateDay, type Day, type Workload } from '../../bench/bill/day';
import { DAYS_A_MONTH, monthOf } from '../../bench/bill/model';
import { AWS_PRICES } from '../../bench/bill/prices';
import type { StackShape } from '../../bench/bill/template';
import { FUNCTION_ENTRIES, type FunctionId } from '../../infra/bundling';
import { memoryOf } from '../../infra/memory';
import { startTestStack } from '../helpers/local';

/*
 * The bill (npm run bill) is held to the code: it reads the provider calls from the sites' ledger of a
 * simulated day through the real handlers, so one more provider call a day in monitoring moves a
 * month's bill by that call's price × 30 × the sites it is scaled to, and nothing else moves it.
 */

/** The workload, small: a day of 10 sites (one niche) runs in seconds. */
const SMALL: Workload = { name: 'small', competitors: 2, keywords: 2, research: 1, publishes: 1, views: 1 };
const SITES = 10;
const AT = 1_000;
/** The price of the call added to monitoring. */
const EXTRA_USD = 0.25;

/** The template's functions as infra/memory.ts sizes them, and no monthly resources: the providers are under test here. */
const SHAPE: StackShape = {
  functions: Object.fromEntries(
    FUNCTION_ENTRIES.map((id) => [id, { memoryMb: memoryOf(id), arm: true }]),
  ) as StackShape['functions'],
  onDemand: true,
  pitr: true,
  backups: [{ keepDays: 35, perMonth: 30 }],
  webAcls: [],
  alarmMetrics: 0,
  dashboards: 0,
  customMetrics: 0,
  secrets: 0,
};

async function day(): Promise<Day> {
  const t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '10' } });
  try {
    return await simulateDay(t, SITES, SMALL);
  } finally {
    await t.stop();
  }
}

afterEach(() => jest.restoreAllMocks());

it(`a provider call a day added to monitoring moves the month at ${AT} sites by its price × ${DAYS_A_MONTH} days × each site, at least`, async () => {
  const beforeDay = await day();
  const before = monthOf(beforeDay, SHAPE, AT);

  // Each monitoring run records one more paid call: the ledger, which the bill reads, has it as the code wrote it.
  const record = UsageStore.prototype.record;
  let added = 0;
  jest.spyOn(UsageStore.prototype, 'record').mockImplementation(function (this: UsageStore, siteId, tool, calls, at) {
    if (tool !== 'monitor') return record.call(this, siteId, tool, calls, at);
    added++;
    return record.call(
      this,
      siteId,
      tool,
      [...calls, { provider: 'sandbox', endpoint: 'one_more_call', cost_usd: EXTRA_USD, simulated: true }],
      at,
    );
  });
  const afterDay = await day();
  const after = monthOf(afterDay, SHAPE, AT);

  // Each site's daily run writes its ledger once (and a block's payers once more): every site's day has the call.
  const writes = (d: Day, of: 'ledger' | 'firstDay') => d[of].monitor!.calls;
  const [firstDay, steady] = [
    writes(afterDay, 'firstDay') - writes(beforeDay, 'firstDay'),
    writes(afterDay, 'ledger') - writes(beforeDay, 'ledger'),
  ];
  expect(added).toBe(firstDay + steady);
  expect(steady).toBeGreaterThanOrEqual(SITES);
  // A month is the first day's and 29 more: at least the call a day, at each of AT sites.
  const rise = (EXTRA_USD * (firstDay + (DAYS_A_MONTH - 1) * steady) * AT) / SITES;
  expect(rise).toBeGreaterThanOrEqual(EXTRA_USD * DAYS_A_MONTH * AT);
  const line = (bill: typeof before, tool: string) => bill.lines.find((l) => l.service === tool)!.usd;
  expect(line(after, 'monitor') - line(before, 'monitor')).toBeCloseTo(rise, 6);
  expect(line(after, 'rank_tracking')).toBeCloseTo(line(before, 'rank_tracking'), 6);
  expect(line(after, 'research')).toBeCloseTo(line(before, 'research'), 6);
  expect(after.providerUsd - before.providerUsd).toBeCloseTo(rise, 6);
  // The total moves by the call, give or take what AWS's share of the two runs differs by (their measured milliseconds).
  expect(Math.abs(after.totalUsd - before.totalUsd - rise)).toBeLessThan(Math.max(after.awsUsd, before.awsUsd));
  expect(after.monitoringAndRanksPerSiteUsd - before.monitoringAndRanksPerSiteUsd).toBeCloseTo(rise / AT, 6);
}, 120_000);

it("states the Lambda seconds research calls spend waiting for their jobs, priced in the bill and small beside research's providers", async () => {
  const simulated = await day();
  // Every site's one question is a job of its own here (no two of a niche's sites ask the same one).
  expect(simulated.researchJobs).toBe(SITES);
  const at = 10_000;
  const bill = monthOf(simulated, SHAPE, at);
  // Each job waited out (45 s, the spec's 30 to 60): 25 s in research and 20 s in jobs (get_job), and 45 s in mcp.
  const seconds = (LIMITS.researchSecondsMin + LIMITS.researchSecondsMax) / 2;
  const gbSeconds = (fn: FunctionId, s: number) => s * (memoryOf(fn) / 1024);
  const perJob = gbSeconds('research', 25) + gbSeconds('jobs', seconds - 25) + gbSeconds('mcp', seconds);
  const jobsAMonth = (simulated.researchJobs * at * DAYS_A_MONTH) / SITES;
  const line = bill.lines.find((l) => l.service === 'Lambda: research calls waiting for their jobs');
  expect(line?.kind).toBe('aws');
  expect(line!.usd).toBeCloseTo(jobsAMonth * perJob * AWS_PRICES.lambdaArmGbSecond.usd, 6);
  expect(bill.researchWaitSecondsADay).toBeCloseTo((simulated.researchJobs * at * 2 * seconds) / SITES, 6);
  // Under a tenth of what the same research pays its providers.
  const research = bill.lines.find((l) => l.kind === 'provider' && l.service === 'research')!.usd;
  expect(line!.usd).toBeLessThan(research / 10);
}, 120_000);
