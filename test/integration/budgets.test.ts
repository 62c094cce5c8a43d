import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS, roundUsd } from '@cm/contract';
import {
  BACKLINK_ENDPOINTS,
  DataForSeoBacklinkData,
  DataForSeoKeywordData,
  dataForSeoPrice,
  ENDPOINTS,
  Meter,
  SandboxResearch,
} from '@cm/providers';
import { loadConfig } from '@cm/runtime';
import { lambdaContext } from '@cm/local';
import { pendingLedger, recordCalls, runResearchJob, SiteBudget } from '@cm/tools';
import { WORKER_SETTLE_MS } from '@cm/runtime';
import { handler as researchWorker } from '../../functions/research-worker/handler';
import { deploymentSpendKey, DEPLOYMENT_SPEND_SHARDS, siteSpendKey } from '../../packages/store/src/keys';
import { fetchNumbers } from '../../packages/tools/src/backlink-numbers';
import { fakeClock } from '../helpers/clock';
import { sqsEvent } from '../helpers/lambda-events';
import { captureOutput } from '../helpers/output';
import { startTestStack, type TestStack } from '../helpers/local';
import { startReplay, type Replay } from '../helpers/replay';
import { given } from '../helpers/client';
import { storedResearchJob } from '../helpers/research';

/* Budgets on the embedded DynamoDB: reservations and settles of the counters, against real replayed bills. */

let t: TestStack;
let replay: Replay;
beforeAll(async () => {
  [t, replay] = await Promise.all([startTestStack(), startReplay()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([t.stop(), replay.close()]);
});
beforeEach(() => {
  replay.requests.length = 0;
});

const budgetOf = (siteId: number, now: () => Date = () => new Date(), deploymentDailyUsd: number | null = null) =>
  new SiteBudget(t.store, siteId, { deploymentDailyUsd, now });
const adapter = () =>
  new DataForSeoKeywordData({
    login: 'l',
    password: 'p',
    baseUrl: replay.url,
    retries: 0,
    backoffMs: 1,
    random: () => 0.5,
  });
const today = () => new Date().toISOString().slice(0, 10);

/** A web research job of the site, queued with its hold on the budget, as the research tool leaves it. */
async function queuedResearchJob(siteId: number, query: string) {
  const budget = budgetOf(siteId);
  const ticket = given(await budget.reserveQueued(0.05), 'the ticket');
  return { budget, jobId: await storedResearchJob(t, { siteId, query, ticket }) };
}

it('lets at most 10 of 50 concurrent paid calls through a budget that fits 10, and the settled spend stays within the limit', async () => {
  const { siteId } = await t.newSite('Concurrent');
  await t.store.budgets.setLimits(siteId, { daily_usd: 0.1 }, new Date().toISOString());
  const budget = budgetOf(siteId);
  const estimate = 0.01;
  const bill = 0.0093;
  const outcomes = await Promise.allSettled(
    Array.from({ length: 50 }, async () => {
      const hold = await budget.reserve(estimate);
      await hold.settle(bill, false);
    }),
  );
  const charged = outcomes.filter((o) => o.status === 'fulfilled');
  expect(charged).toHaveLength(10);
  for (const refused of outcomes.filter((o) => o.status === 'rejected'))
    expect(refused.reason).toMatchObject({ code: 'budget_exceeded', status: 402 });
  const { day } = await t.store.budgets.windows({ siteId }, today());
  expect(day).toEqual({ spent: 0.093, reserved: 0, simulated: 0 });
  expect(given(day, 'the day').spent).toBeLessThanOrEqual(0.1 + (estimate - bill));
});

it('settles a replayed DataForSEO call to its billed cost, and a failed call cancels its whole hold', async () => {
  const { siteId } = await t.newSite('Replayed');
  await t.store.budgets.setLimits(siteId, { daily_usd: 1 }, new Date().toISOString());
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const meter = new Meter({ guard: budgetOf(siteId) });
  await adapter().serpOrganic('running shoes', 'US/en', 20, meter);
  await meter.settled();
  expect((await t.store.budgets.windows({ siteId }, today())).day).toEqual({
    spent: 0.0035,
    reserved: 0,
    simulated: 0,
  });

  replay.answer(ENDPOINTS.serpOrganic, { status: 500, fixture: 'http500' });
  const failing = new Meter({ guard: budgetOf(siteId) });
  await expect(adapter().serpOrganic('running shoes', 'US/en', 20, failing)).rejects.toMatchObject({
    name: 'ProviderError',
  });
  await failing.settled();
  expect(replay.requests).toHaveLength(2);
  // The 500 billed nothing: the reservation is gone and the spend is what it was.
  expect((await t.store.budgets.windows({ siteId }, today())).day).toEqual({
    spent: 0.0035,
    reserved: 0,
    simulated: 0,
  });
});

it('refuses a call that would pass the daily limit with 402 and calls no provider', async () => {
  const { siteId } = await t.newSite('Refused');
  await t.store.budgets.setLimits(siteId, { daily_usd: 0.003 }, new Date().toISOString());
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const measured: number[] = [];
  const meter = new Meter({
    guard: new SiteBudget(t.store, siteId, {
      deploymentDailyUsd: null,
      now: () => new Date(),
      measure: (pct) => measured.push(pct),
    }),
  });
  await expect(adapter().serpOrganic('running shoes', 'US/en', 20, meter)).rejects.toMatchObject({
    code: 'budget_exceeded',
    extra: { window: 'day', limit_usd: 0.003, spent_usd: 0, scope: 'site' },
  });
  expect(replay.requests).toHaveLength(0);
  expect(meter.calls).toHaveLength(0);
  // The refusal reads as a budget used up: budget_usd_used_pct 100, which its 100% alarm watches.
  expect(measured).toEqual([100]);
});

it('starts the month window again at the UTC month start', async () => {
  const { siteId } = await t.newSite('Monthly');
  await t.store.budgets.setLimits(siteId, { monthly_usd: 0.05 }, new Date().toISOString());
  let now = new Date('2031-01-31T23:59:59.000Z');
  const budget = budgetOf(siteId, () => now);
  await (await budget.reserve(0.05)).settle(0.05, false);
  await expect(budget.reserve(0.01)).rejects.toMatchObject({
    code: 'budget_exceeded',
    extra: { window: 'month', resets_at: '2031-02-01T00:00:00.000Z' },
  });
  now = new Date('2031-02-01T00:00:00.000Z');
  await (await budget.reserve(0.01)).settle(0.01, false);
  expect((await t.store.budgets.windows({ siteId }, '2031-02-01')).month).toEqual({
    spent: 0.01,
    reserved: 0,
    simulated: 0,
  });
  expect((await t.store.budgets.windows({ siteId }, '2031-01-31')).month).toEqual({
    spent: 0.05,
    reserved: 0,
    simulated: 0,
  });
});

it("holds the deployment's daily cap across sites, undoing a site's reservation the cap refuses, and never tells a site what others spent", async () => {
  const [a, b] = await Promise.all([t.newSite('Cap A'), t.newSite('Cap B')]);
  const day = '2032-03-04';
  const at = () => new Date(`${day}T12:00:00.000Z`);
  await (await budgetOf(a.siteId, at, 0.02).reserve(0.015)).settle(0.015, false);
  const refused = budgetOf(b.siteId, at, 0.02).reserve(0.01);
  await expect(refused).rejects.toMatchObject({
    code: 'budget_exceeded',
    extra: { scope: 'deployment', window: 'day', limit_usd: null, spent_usd: null },
  });
  expect((await t.store.budgets.windows({ siteId: b.siteId }, day)).day).toEqual({
    spent: 0,
    reserved: 0,
    simulated: 0,
  });
  expect((await t.store.budgets.windows('deployment', day)).day).toEqual({ spent: 0.015, reserved: 0, simulated: 0 });
});

it("never lets concurrent calls past the deployment's cap when each must be split over its shards", async () => {
  const sites = await Promise.all([t.newSite('Split A'), t.newSite('Split B'), t.newSite('Split C')]);
  const day = '2032-03-05';
  const at = () => new Date(`${day}T12:00:00.000Z`);
  // An eighth of the cap is 0.0025: each 0.003 takes room on two shards or more.
  const outcomes = await Promise.allSettled(
    Array.from({ length: 30 }, (_v, i) =>
      budgetOf(given(sites[i % 3], 'the sites[i % 3]').siteId, at, 0.02).reserve(0.003),
    ),
  );
  const holds = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  for (const refused of outcomes.filter((o) => o.status === 'rejected'))
    expect(refused.reason).toMatchObject({ code: 'budget_exceeded', extra: { scope: 'deployment' } });
  expect(holds.length).toBeGreaterThan(0);
  expect(holds.length).toBeLessThanOrEqual(6);
  expect(given((await t.store.budgets.windows('deployment', day)).day, 'the day').reserved).toBeLessThanOrEqual(0.02);
  await Promise.all(holds.map((hold) => hold.settle(0.002, false)));
  expect((await t.store.budgets.windows('deployment', day)).day).toEqual({
    spent: Math.round(holds.length * 2000) / 1e6,
    reserved: 0,
    simulated: 0,
  });
  const perSite = await Promise.all(sites.map(({ siteId }) => t.store.budgets.windows({ siteId }, day)));
  expect(perSite.map((w) => given(w.day, 'the day').reserved)).toEqual([0, 0, 0]);
});

it("charges a dead call's hold at its estimate once it expires: it stays counted, and its late settle corrects it to the bill", async () => {
  const { siteId } = await t.newSite('Dead call');
  const day = today();
  // The clock is set, not waited on: however slow the engine, the hold expires only when the test says so.
  const start = Date.now();
  const [dead, early, late] = [
    { id: 'dead', expiresAt: start + 1000, estimate: 0.05 },
    { id: 'early', expiresAt: start + 60_000 },
    { id: 'late', expiresAt: start + 60_000 },
  ];
  fakeClock(start);
  try {
    expect(await t.store.budgets.reserve({ siteId }, day, dead, 0.05, { day: 0.06 })).toMatchObject({
      reserved: true,
    });
    jest.setSystemTime(start + 999);
    expect(await t.store.budgets.reserve({ siteId }, day, early, 0.05, { day: 0.06 })).toMatchObject({
      reserved: false,
      window: 'day',
    });
    expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0, reserved: 0.05, simulated: 0 });
    jest.setSystemTime(start + 1000);
    // Expired, the hold is charged at its estimate by the refusal that finds it: no room comes back.
    expect(await t.store.budgets.reserve({ siteId }, day, late, 0.05, { day: 0.06 })).toMatchObject({
      reserved: false,
    });
    expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.05, reserved: 0, simulated: 0 });
    expect(await t.store.budgets.reserve({ siteId }, day, late, 0.01, { day: 0.06 })).toMatchObject({
      reserved: true,
    });
  } finally {
    jest.useRealTimers();
  }
  // The dead call's late settle replaces its charge with what it was billed, and takes nothing from the new reservation.
  await t.store.budgets.settle({ siteId }, day, dead, 0.002, false);
  expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.002, reserved: 0.01, simulated: 0 });
});

it('settles a ticket once: a second settle (a lapsed lease before its worker, a message delivered again) only adds its bill', async () => {
  const { siteId } = await t.newSite('Settled twice');
  const day = today();
  const budget = budgetOf(siteId);
  const ticket = given(await budget.reserveQueued(0.05), 'the reserveQueued');
  await budget.settle(ticket, 0, false);
  await budget.settle(ticket, 0.02, false);
  expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.02, reserved: 0, simulated: 0 });
});

it("corrects an expired hold's charge to its bill once, however many settles come late and however they race", async () => {
  const { siteId } = await t.newSite('Charged, then settled twice');
  // A fixed early hour: from the real one, the hold's end could fall on the next day, a window of its own.
  const day = '2033-05-07';
  const start = Date.parse(`${day}T03:00:00.000Z`);
  fakeClock(start);
  try {
    await t.store.budgets.setLimits(siteId, { daily_usd: 0.06 }, new Date().toISOString());
    const budget = budgetOf(siteId);
    const ticket = given(await budget.reserveQueued(0.05), 'the reserveQueued');
    jest.setSystemTime(start + LIMITS.queuedBudgetHoldMs);
    // Expired, a refusal charges the expired hold at its estimate.
    await expect(budget.reserve(0.05)).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.05, reserved: 0, simulated: 0 });
    // Two settles at once: one takes the charge back for its bill, the other only adds its own.
    await Promise.all([budget.settle(ticket, 0.002, false), budget.settle(ticket, 0.002, false)]);
    expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.004, reserved: 0, simulated: 0 });
    await budget.settle(ticket, 0.001, false);
    expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: 0.005, reserved: 0, simulated: 0 });
  } finally {
    jest.useRealTimers();
  }
});

it("keeps each reservation in flight in an item of its own, so no counter grows with them, and charges dead calls' holds at their estimate", async () => {
  const { siteId } = await t.newSite('Holds apart');
  const day = '2033-05-06';
  const at = () => new Date(`${day}T12:00:00.000Z`);
  const CALLS = 60;
  const limit = CALLS * 0.001;
  await t.store.budgets.setLimits(siteId, { daily_usd: limit }, new Date().toISOString());
  const counters = [
    siteSpendKey(siteId, day.slice(0, 7)),
    ...Array.from({ length: DEPLOYMENT_SPEND_SHARDS }, (_v, shard) => deploymentSpendKey(day, shard)),
  ];
  const largestCounter = async () => {
    const items = await Promise.all(
      counters.map(async (Key) => (await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key }))).Item),
    );
    return Math.max(...items.map((item) => JSON.stringify(item ?? {}).length));
  };
  const start = Date.now();
  fakeClock(start);
  try {
    // The site's daily limit and the deployment's cap filled with calls that die before they settle.
    const filling = budgetOf(siteId, at, 1);
    await filling.reserve(0.001);
    const withOne = await largestCounter();
    await Promise.all(Array.from({ length: CALLS - 1 }, () => filling.reserve(0.001)));
    expect(await largestCounter()).toBeLessThan(withOne + 20);
    const capped = budgetOf(siteId, at, limit);
    await expect(capped.reserve(0.001)).rejects.toMatchObject({ code: 'budget_exceeded' });
    // Their holds expire: refused calls charge them at their estimate (25 a hold partition at a time), on
    // the site's counter and the deployment's; the calls may have been billed, so no room comes back.
    jest.setSystemTime(start + LIMITS.budgetHoldMs);
    for (let i = 0; i < Math.ceil(CALLS / 25); i++)
      await expect(capped.reserve(0.001)).rejects.toMatchObject({ code: 'budget_exceeded' });
  } finally {
    jest.useRealTimers();
  }
  expect((await t.store.budgets.windows({ siteId }, day)).day).toEqual({ spent: limit, reserved: 0, simulated: 0 });
  // The deployment's shards each refuse on their own share, so some of its holds may wait for a later
  // refusal to be charged: spent or still reserved, every one is counted.
  const deployment = given((await t.store.budgets.windows('deployment', day)).day, 'the day');
  expect(roundUsd(deployment.spent + deployment.reserved)).toBe(limit);
});

it("reserves a paid call in 2 requests on each counter (the counter's conditional update, then the hold's item) and settles it in 2 (the hold's delete, then the counter's update)", async () => {
  const { siteId } = await t.newSite('Round trips');
  const budget = budgetOf(siteId, () => new Date(), 100);
  await budget.limits();
  const recording = t.stack.dynamo.record();
  try {
    const hold = await budget.reserve(0.01);
    expect(recording.operations().sort()).toEqual(['PutItem', 'PutItem', 'UpdateItem', 'UpdateItem']);
    await hold.settle(0.005, false);
    expect(recording.operations().slice(4).sort()).toEqual(['DeleteItem', 'DeleteItem', 'UpdateItem', 'UpdateItem']);
  } finally {
    recording.stop();
  }
});

it("keeps a site's month counter at its largest (every day of a 31-day month counted) far under DynamoDB's 400 KB", async () => {
  const { siteId } = await t.newSite('Full month');
  await t.store.budgets.setLimits(siteId, { daily_usd: 1, monthly_usd: 10 }, new Date().toISOString());
  for (let day = 1; day <= 31; day++) {
    const at = () => new Date(`2034-01-${String(day).padStart(2, '0')}T12:00:00.000Z`);
    await (await budgetOf(siteId, at, 100).reserve(0.01)).settle(0.009, true);
  }
  const counter = await t.db.send(
    new GetCommand({ TableName: t.stack.tableName, Key: siteSpendKey(siteId, '2034-01') }),
  );
  console.log(`a site's month counter, every day counted: ${JSON.stringify(counter.Item).length} bytes of JSON`);
  expect(JSON.stringify(counter.Item).length).toBeLessThan(4096);
  expect((await t.store.budgets.windows({ siteId }, '2034-01-31')).month).toEqual({
    spent: 0.279,
    reserved: 0,
    simulated: 0.279,
  });
});

it('settles a research job’s bill and ledgers its calls before the job ends, so a crash in between loses neither', async () => {
  const { siteId } = await t.newSite('Crash after the bill');
  const { budget, jobId } = await queuedResearchJob(siteId, 'settled before it ends');
  // The worker dies as it ends the job: the store's finish never returns.
  const store = {
    ...t.store,
    jobs: Object.assign(Object.create(t.store.jobs) as typeof t.store.jobs, {
      finish: () => Promise.reject(new Error('killed')),
    }),
  };
  const meter = new Meter({ listPrices: true });
  const deps = {
    store,
    research: new SandboxResearch(0),
    meter,
    enqueue: async () => undefined,
    researchLeaseMs: 60_000,
    budgetOf: () => budget,
  };
  await expect(runResearchJob(deps, { job_id: jobId })).rejects.toThrow('killed');
  expect(meter.costUsd).toBeGreaterThan(0);
  const windows = await t.store.budgets.windows({ siteId }, today());
  expect(windows.day).toMatchObject({ spent: meter.costUsd, reserved: 0 });
  const ledger = await t.store.usage.report(
    siteId,
    `${today()}T00:00:00.000Z`,
    new Date(Date.now() + 1000).toISOString(),
  );
  expect(ledger).toMatchObject({ calls: meter.calls.length, simulated_cost_usd: meter.costUsd });
  expect(ledger.by_tool.map((line) => line.tool)).toEqual(['research']);
});

it('reads GLOBAL_DAILY_BUDGET_USD as USD, and refuses anything else at start rather than at each paid call', () => {
  expect(loadConfig({ TABLE_NAME: 'x' }).globalDailyBudgetUsd).toBeNull();
  expect(loadConfig({ TABLE_NAME: 'x', GLOBAL_DAILY_BUDGET_USD: '25.5' }).globalDailyBudgetUsd).toBe(25.5);
  expect(loadConfig({ TABLE_NAME: 'x', GLOBAL_DAILY_BUDGET_USD: '0' }).globalDailyBudgetUsd).toBe(0);
  for (const value of ['five', '-1', 'Infinity']) {
    expect(() => loadConfig({ TABLE_NAME: 'x', GLOBAL_DAILY_BUDGET_USD: value })).toThrow(
      /GLOBAL_DAILY_BUDGET_USD must be a number of USD/,
    );
  }
});

describe('a worker that runs out of time', () => {
  const reportOf = (siteId: number) =>
    t.store.usage.report(siteId, `${today()}T00:00:00.000Z`, new Date(Date.now() + 60_000).toISOString());

  it('killed between its paid call and the settle, leaves the call pending in the ledger at its held price, counted in usage and budget', async () => {
    const { siteId } = await t.newSite('Killed mid-call');
    await t.store.budgets.setLimits(siteId, { daily_usd: 1 }, new Date().toISOString());
    replay.hang(ENDPOINTS.serpOrganic);
    const run = new AbortController();
    const meter = new Meter({
      guard: budgetOf(siteId),
      ledger: pendingLedger(t.store, siteId, 'monitor'),
      signal: run.signal,
    });
    const call = adapter()
      .serpOrganic('killed mid-call', 'US/en', 20, meter)
      .catch(() => undefined);
    try {
      // The provider has the request; the worker is killed now, so nothing after the call runs.
      while (replay.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const { day } = await t.store.budgets.windows({ siteId }, today());
      const held = given(day, 'the day').reserved;
      expect(held).toBeGreaterThan(0);
      const report = await reportOf(siteId);
      expect(report.by_tool).toEqual([
        { tool: 'monitor', provider: 'dataforseo', calls: 1, cost_usd: held, pending_calls: 1 },
      ]);
      expect(report.cost_usd).toBe(held);
    } finally {
      replay.hang(ENDPOINTS.serpOrganic, false);
      run.abort();
      await call;
      await meter.settled();
    }
  });

  it('keeps a call its deadline cut after the request was sent pending at its estimate, in usage and budget', async () => {
    const { siteId } = await t.newSite('Cut mid-call');
    replay.hang(ENDPOINTS.serpOrganic);
    const run = new AbortController();
    const meter = new Meter({
      guard: budgetOf(siteId),
      ledger: pendingLedger(t.store, siteId, 'monitor'),
      signal: run.signal,
    });
    try {
      const call = adapter().serpOrganic('cut mid-call', 'US/en', 20, meter);
      // The provider has the request when the deadline passes: it may bill it.
      while (replay.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      run.abort();
      await expect(call).rejects.toMatchObject({ name: 'ProviderError' });
      await meter.settled();
      await recordCalls(t.store, siteId, 'monitor', meter);
    } finally {
      replay.hang(ENDPOINTS.serpOrganic, false);
    }
    const estimate = dataForSeoPrice(ENDPOINTS.serpOrganic, 20);
    expect((await reportOf(siteId)).by_tool).toEqual([
      { tool: 'monitor', provider: 'dataforseo', calls: 1, cost_usd: estimate, pending_calls: 1 },
    ]);
    expect((await t.store.budgets.windows({ siteId }, today())).day).toEqual({
      spent: estimate,
      reserved: 0,
      simulated: 0,
    });
  });

  it("puts each bulk request of monitoring's numbers in the paying sites' ledgers before it is made, and keeps one its deadline cut pending", async () => {
    const [a, b] = [await t.newSite('Pays two rows'), await t.newSite('Pays one row')];
    const payer: Record<string, number> = { 'a1.example': a.siteId, 'a2.example': a.siteId, 'b1.example': b.siteId };
    replay.hang(BACKLINK_ENDPOINTS.bulkPagesSummary);
    replay.answer(BACKLINK_ENDPOINTS.bulkNewLostBacklinks, { fixture: 'backlinks_bulk_new_lost_backlinks.ok' });
    replay.answer(BACKLINK_ENDPOINTS.bulkNewLostReferringDomains, {
      fixture: 'backlinks_bulk_new_lost_referring_domains.ok',
    });
    const run = new AbortController();
    const backlinkData = new DataForSeoBacklinkData({ login: 'l', password: 'p', baseUrl: replay.url, retries: 0 });
    const deps = {
      store: t.store,
      backlinkData,
      listPrices: false,
      signal: run.signal,
      payerOf: (domain: string) => payer[domain] ?? 0,
      now: new Date(),
    };
    let fetched;
    try {
      const fetching = fetchNumbers(deps, Object.keys(payer), today(), 'plan-run');
      while (replay.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      // Each request is pending in each paying site's ledger, at its rows' share of the estimate.
      const estimate = dataForSeoPrice(BACKLINK_ENDPOINTS.bulkPagesSummary, 3);
      expect((await reportOf(a.siteId)).by_tool).toEqual([
        expect.objectContaining({ tool: 'monitor', calls: 3, pending_calls: 3 }),
      ]);
      expect((await reportOf(b.siteId)).by_tool).toEqual([
        expect.objectContaining({ tool: 'monitor', calls: 3, pending_calls: 3 }),
      ]);
      run.abort();
      fetched = await fetching;
      expect(fetched.failed).toEqual(Object.keys(payer));
      // The cut request reached the provider: its shares stay pending at the estimate (each rounded to a millionth).
      const cut = [...fetched.lines.values()].flat().filter((line) => line.pending === true);
      expect(cut).toHaveLength(3);
      expect(cut.reduce((sum, line) => sum + line.cost_usd, 0)).toBeCloseTo(estimate, 5);
    } finally {
      replay.hang(BACKLINK_ENDPOINTS.bulkPagesSummary, false);
    }
    // The plan's write of each site's shares settles its pending lines: the answered requests at their
    // bills, the cut one still pending; no line is left over.
    for (const site of [a, b]) {
      const lines = Object.keys(payer).flatMap((d) => (payer[d] === site.siteId ? (fetched.lines.get(d) ?? []) : []));
      await t.store.usage.record(site.siteId, 'monitor', lines);
    }
    expect((await reportOf(a.siteId)).by_tool).toEqual([
      expect.objectContaining({ tool: 'monitor', calls: 6, pending_calls: 2 }),
    ]);
    expect((await reportOf(b.siteId)).by_tool).toEqual([
      expect.objectContaining({ tool: 'monitor', calls: 3, pending_calls: 1 }),
    ]);
  });

  it('deletes the pending lines of bulk requests that never reached the provider (no connection)', async () => {
    const site = await t.newSite('Never connected');
    const closed = await startReplay();
    await closed.close();
    const backlinkData = new DataForSeoBacklinkData({ login: 'l', password: 'p', baseUrl: closed.url, retries: 0 });
    const deps = { store: t.store, backlinkData, listPrices: false, payerOf: () => site.siteId, now: new Date() };
    const fetched = await fetchNumbers(deps, ['never.example'], today(), 'plan-run');
    expect(fetched.failed).toEqual(['never.example']);
    expect(fetched.lines.size).toBe(0);
    expect(await reportOf(site.siteId)).toMatchObject({ calls: 0, by_tool: [] });
  });

  it('settles a pending line to the bill in the same batch write as before, and deletes the line of a call never made', async () => {
    const { siteId } = await t.newSite('Settled lines');
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    const meter = new Meter({ guard: budgetOf(siteId), ledger: pendingLedger(t.store, siteId, 'monitor') });
    await adapter().serpOrganic('settled', 'US/en', 20, meter);
    // A reservation whose call never reached the provider.
    meter.cancel(await meter.reserve(0.5, { provider: 'dataforseo', endpoint: ENDPOINTS.serpOrganic }));
    await meter.settled();
    // Both lines are pending until the run's record settles them.
    expect((await reportOf(siteId)).by_tool).toEqual([
      { tool: 'monitor', provider: 'dataforseo', calls: 2, cost_usd: expect.any(Number), pending_calls: 2 },
    ]);
    const recording = t.stack.dynamo.record();
    try {
      await recordCalls(t.store, siteId, 'monitor', meter);
      expect(recording.operations()).toEqual(['BatchWriteItem']);
    } finally {
      recording.stop();
    }
    expect((await reportOf(siteId)).by_tool).toEqual([
      { tool: 'monitor', provider: 'dataforseo', calls: 1, cost_usd: 0.0035 },
    ]);
  });

  it('deletes the pending line of a call its budget refused: no call, no line', async () => {
    const { siteId } = await t.newSite('Refused line');
    await t.store.budgets.setLimits(siteId, { daily_usd: 0.001 }, new Date().toISOString());
    const meter = new Meter({ guard: budgetOf(siteId), ledger: pendingLedger(t.store, siteId, 'monitor') });
    await expect(meter.reserve(0.5, { provider: 'dataforseo', endpoint: ENDPOINTS.serpOrganic })).rejects.toMatchObject(
      { code: 'budget_exceeded' },
    );
    await meter.settled();
    expect(await reportOf(siteId)).toMatchObject({ calls: 0, by_tool: [] });
  });

  it('near its deadline, starts no paid call: the message goes back to the queue, nothing is run or charged', async () => {
    const { siteId } = await t.newSite('Out of time');
    const { jobId } = await queuedResearchJob(siteId, 'no time left');
    const event = sqsEvent('research', [JSON.stringify({ job_id: jobId })]);
    const output = captureOutput({ level: 'ERROR' });
    try {
      // The local stack's Lambda context: less time left than settling takes.
      const response = await researchWorker(event, lambdaContext('research-worker', WORKER_SETTLE_MS - 1));
      expect(response).toEqual({
        batchItemFailures: [{ itemIdentifier: given(event.Records[0], 'the event.Records[0]').messageId }],
      });
    } finally {
      output.stop();
    }
    expect(await t.store.jobs.get(jobId)).toMatchObject({ status: 'queued' });
    expect((await reportOf(siteId)).calls).toBe(0);
    // With its time, the same message runs: its calls are settled lines, none left pending.
    await researchWorker(event, lambdaContext('research-worker', 150_000));
    expect(await t.store.jobs.get(jobId)).toMatchObject({ status: 'succeeded' });
    const report = await reportOf(siteId);
    expect(report.calls).toBeGreaterThan(0);
    expect(report.by_tool.every((line) => line.pending_calls === undefined)).toBe(true);
  });
});
