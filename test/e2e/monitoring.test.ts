import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MonitorMessage, MonitorPlanMessage } from '@cm/contract';
import { bulkNumbersPrice, Meter, ProviderError, SandboxBacklinkData } from '@cm/providers';
import { InProcessQueue } from '@cm/local';
import { BacklinkStore } from '@cm/store';
import { SiteBudget } from '@cm/tools';
import { fakeClock } from '../helpers/clock';
import { withStackEnv, useTestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { freeBacklinkData, seedMonitoredSites } from '../helpers/monitoring-seed';
import { sequenceKey } from '../../packages/store/src/keys';

/*
 * The daily monitoring schedule fans out (schedule → plan messages of 100 sites → a run per site), and
 * each run claims each domain's paid work of the day before paying for it: a redelivered message, a
 * rerun schedule, a retried invocation or a plan stopped midway never pays twice. Provider calls are
 * counted on the sandbox (the spies call through), ledger lines through the store.
 */

const t = useTestStack();
// The clock held at today's noon (UTC) once the stack runs: a schedule run now and one of tomorrow (or a
// run again the same day) stay the days they are meant to be, however long the file runs, across midnight too.
beforeAll(() => fakeClock(Date.parse(`${new Date().toISOString().slice(0, 10)}T12:00:00.000Z`)));
afterAll(() => jest.useRealTimers());

const sandbox = SandboxBacklinkData.prototype;
const sandboxNumbers = sandbox.numbers;
const sandboxDetail = sandbox.detail;
let numbers: jest.SpiedFunction<SandboxBacklinkData['numbers']>;
let trends: jest.SpiedFunction<SandboxBacklinkData['trend']>;
let details: jest.SpiedFunction<SandboxBacklinkData['detail']>;
let gaps: jest.SpiedFunction<SandboxBacklinkData['linkGap']>;
beforeEach(() => {
  numbers = jest.spyOn(sandbox, 'numbers');
  trends = jest.spyOn(sandbox, 'trend');
  details = jest.spyOn(sandbox, 'detail');
  gaps = jest.spyOn(sandbox, 'linkGap');
});
afterEach(() => jest.restoreAllMocks());

/** How many times the provider was asked for each domain's numbers, trend and detail (and for each site domain's gap). */
const numbersCalls = (domain: string) => numbers.mock.calls.filter(([asked]) => asked.includes(domain)).length;
const paidCalls = (domain: string) => [
  numbersCalls(domain),
  trends.mock.calls.filter(([asked]) => asked === domain).length,
  details.mock.calls.filter(([asked]) => asked === domain).length,
];
const gapCalls = (domain: string) => gaps.mock.calls.filter(([asked]) => asked === domain).length;

/** A site with `competitors` active competitors, written through the store. */
async function monitoredSite(name: string, competitors: number) {
  const domain = `${name}.example.com`;
  const site = await t.newSite(name, { domain });
  const rivals = Array.from({ length: competitors }, (_v, i) => `${name}-rival-${i + 1}.com`);
  const now = new Date().toISOString();
  if (rivals.length > 0)
    await t.store.rows.insertMany(
      site.siteId,
      'cm_competitors',
      rivals.map((rival) => ({ domain: rival, active: true, added_at: now })),
      now,
    );
  return { ...site, domain, rivals, domains: [domain, ...rivals], client: apiClient(t, site.key) };
}
type MonitoredSite = Awaited<ReturnType<typeof monitoredSite>>;

/** The site's ledger lines: every provider call recorded for it. */
const ledgerLines = async (siteId: number) =>
  (await t.store.usage.report(siteId, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z')).calls;

/** The site's ledger lines of calls made for it (not answered from the shared cache). */
const paidLines = async (siteId: number) => {
  const report = await t.store.usage.report(siteId, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
  return report.by_tool.reduce((sum, line) => sum + line.calls - (line.cached_calls ?? 0), 0);
};

/**
 * Each domain of each site was asked for once (its numbers, trend and detail; the site's gap once too),
 * and the ledger has exactly those calls: a line of each domain's numbers, trend and detail, and the gap.
 * (A plan delivered again may add a $0 cached line of numbers the site paid for: docs/architecture/queued-jobs.md#monitoring.)
 */
async function expectPaidOnce(sites: readonly MonitoredSite[]) {
  for (const site of sites) {
    expect(site.domains.map((domain) => [domain, ...paidCalls(domain)])).toEqual(
      site.domains.map((domain) => [domain, 1, 1, 1]),
    );
    expect(gapCalls(site.domain)).toBe(site.rivals.length > 0 ? 1 : 0);
    expect(await paidLines(site.siteId)).toBe(3 * site.domains.length + (site.rivals.length > 0 ? 1 : 0));
  }
}

/** Delivers monitoring messages in waves of `wave` (as a worker that runs that many at once), each wave handled before the next. */
async function runInWaves(bodies: readonly string[], wave = 25) {
  const runs = t.stack.queues.monitor;
  for (let i = 0; i < bodies.length; i += wave) {
    await Promise.all(bodies.slice(i, i + wave).map((body) => InProcessQueue.prototype.send.call(runs, body)));
    await runs.idle();
  }
}

const runMessage = (siteId: number, extra: Partial<MonitorMessage> = {}) =>
  JSON.stringify({ site_id: siteId, requested_at: new Date().toISOString(), ...extra } satisfies MonitorMessage);

describe('the daily schedule', () => {
  it('pays nothing twice when it runs again the same day', async () => {
    const sites = [await monitoredSite('rerun-a', 3), await monitoredSite('rerun-b', 0)];
    await t.stack.runSchedule();
    await t.stack.drain();
    await t.stack.runSchedule();
    await t.stack.drain();
    await expectPaidOnce(sites);
    for (const site of sites)
      for (const domain of site.domains) expect(await t.store.backlinks.latest(site.siteId, domain)).not.toBeNull();
  }, 60_000);

  it('run as of a later date (npm run schedule -- --date) monitors that day: dated it, once, whatever ran today', async () => {
    const site = await monitoredSite('dated', 1);
    await t.stack.runSchedule();
    await t.stack.drain();
    const tomorrow = new Date(Date.now() + 86_400_000);
    await t.stack.runSchedule(tomorrow);
    await t.stack.drain();
    await t.stack.runSchedule(tomorrow);
    await t.stack.drain();
    // Today's run, and tomorrow's once: each domain's numbers paid for twice; the trend, taken once, is
    // extended; the detail and the site's gap are a day old, not due again.
    expect(site.domains.map(paidCalls)).toEqual([
      [2, 1, 1],
      [2, 1, 1],
    ]);
    expect(gapCalls(site.domain)).toBe(1);
    for (const domain of site.domains)
      expect((await t.store.backlinks.latest(site.siteId, domain))?.day).toBe(tomorrow.toISOString().slice(0, 10));
  });

  it('of add_competitor claims the same work: the day’s schedule pays nothing again, and only a new competitor set pays for the site’s gap again', async () => {
    const site = await monitoredSite('added', 0);
    expect((await site.client.tool('add_competitor', { domain: 'first-rival.com' })).body).toMatchObject({
      created: true,
      monitoring_deferred: 0,
    });
    await t.stack.drain();
    await t.stack.runSchedule();
    await t.stack.drain();
    expect([...paidCalls(site.domain), ...paidCalls('first-rival.com'), gapCalls(site.domain)]).toEqual([
      1, 1, 1, 1, 1, 1, 1,
    ]);

    // A second competitor changes the site's gap: the gap is paid for once more (the site's numbers come
    // from the cache, its trend and detail are today's), the first rival not at all.
    await site.client.tool('add_competitor', { domain: 'second-rival.com' });
    await t.stack.drain();
    await t.stack.runSchedule();
    await t.stack.drain();
    expect([
      ...paidCalls(site.domain),
      ...paidCalls('first-rival.com'),
      ...paidCalls('second-rival.com'),
      gapCalls(site.domain),
    ]).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
    const gap = given(given(await t.store.backlinks.latest(site.siteId, site.domain), 'the latest').gap, 'the gap');
    expect(new Set(gap.flatMap((g) => g.links_to))).toEqual(new Set(['first-rival.com', 'second-rival.com']));
    // Three domains' numbers, trends and details, two gaps, and the site's numbers from the cache once.
    expect(await ledgerLines(site.siteId)).toBe(12);
    const usage = await t.store.usage.report(site.siteId, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
    expect(usage.by_tool.find((line) => line.tool === 'monitor')).toMatchObject({ calls: 12, cached_calls: 1 });
  });

  it("pays a competitor two sites monitor once: the plan's bulk batch split evenly over its rows, each row charged to the first site that monitors it, the other's line cached at $0", async () => {
    // Every site there is monitored today first, so the batch below is only the new sites' domains.
    await t.stack.runSchedule();
    await t.stack.drain();
    numbers.mockClear();
    const a = await monitoredSite('share-a', 0);
    const b = await monitoredSite('share-b', 0);
    const now = new Date().toISOString();
    for (const site of [a, b])
      await t.store.rows.insertMany(
        site.siteId,
        'cm_competitors',
        [{ domain: 'shared-rival.com', active: true, added_at: now }],
        now,
      );
    // The numbers at list prices, everything else free, so each site's bill is its rows' shares alone.
    freeBacklinkData();
    numbers.mockImplementation(function (this: SandboxBacklinkData, domains, meter) {
      return sandboxNumbers.call(this, domains, meter);
    });
    await withStackEnv(t, { SANDBOX_LIST_PRICES: '1' }, async () => {
      await t.stack.runSchedule();
      await t.stack.drain();
    });
    // One batch of the three domains no run had that day, asked for once.
    const batch = numbers.mock.calls.map(([domains]) => [...domains].sort());
    expect(batch).toEqual([['share-a.example.com', 'share-b.example.com', 'shared-rival.com']]);
    const share = Math.round((bulkNumbersPrice(3) / 3) * 1e6) / 1e6;
    const monitorLines = async (siteId: number) => {
      const report = await t.store.usage.report(siteId, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
      const lines = report.by_tool.filter((line) => line.tool === 'monitor');
      return {
        calls: lines.reduce((sum, line) => sum + line.calls, 0),
        cached: lines.reduce((sum, line) => sum + (line.cached_calls ?? 0), 0),
        usd: Math.round(lines.reduce((sum, line) => sum + line.cost_usd, 0) * 1e6) / 1e6,
      };
    };
    // Each site: two domains' numbers, trends and details, and its gap. The first site pays its own row
    // and the shared rival's; the second its own, and has the rival from the cache at $0.
    expect(await monitorLines(a.siteId)).toEqual({ calls: 7, cached: 0, usd: 2 * share });
    expect(await monitorLines(b.siteId)).toEqual({ calls: 7, cached: 1, usd: share });
    // The rival's snapshot is the same numbers for both sites.
    const [snapA, snapB] = await Promise.all(
      [a, b].map((site) => t.store.backlinks.latest(site.siteId, 'shared-rival.com')),
    );
    expect(snapA?.profile.summary).toEqual(snapB?.profile.summary);
  });

  it("leaves a competitor to the next site of the block when the first has no room: that site's run pays for it, the first's waits", async () => {
    await t.stack.runSchedule();
    await t.stack.drain();
    numbers.mockClear();
    const a = await monitoredSite('broke-a', 0);
    const b = await monitoredSite('broke-b', 0);
    const now = new Date().toISOString();
    for (const site of [a, b])
      await t.store.rows.insertMany(
        site.siteId,
        'cm_competitors',
        [{ domain: 'contested-rival.com', active: true, added_at: now }],
        now,
      );
    await withStackEnv(t, { SANDBOX_LIST_PRICES: '1' }, async () => {
      await a.client.route('PUT /v1/budget', { body: { daily_usd: 0 } });
      await t.stack.runSchedule();
      await t.stack.drain();
    });
    // The plan paid the second site's own domain; the rival, given back by the first, the second's run paid itself.
    expect(numbers.mock.calls.map(([domains]) => [...domains].sort())).toEqual([
      ['broke-b.example.com'],
      ['contested-rival.com'],
    ]);
    expect(await t.store.backlinks.latest(b.siteId, 'contested-rival.com')).not.toBeNull();
    expect(await t.store.backlinks.latest(a.siteId, 'contested-rival.com')).toBeNull();
    expect(await paidLines(a.siteId)).toBe(0);
  });

  it('gives its numbers claims back when it fails before keeping them: delivered again, it pays for them once', async () => {
    await t.stack.runSchedule();
    await t.stack.drain();
    numbers.mockClear();
    const site = await monitoredSite('plan-fails', 1);
    jest.spyOn(SiteBudget.prototype, 'reserveQueued').mockRejectedValueOnce(new Error('injected budget failure'));
    await t.stack.runSchedule();
    await t.stack.drain();
    expect(site.domains.map(numbersCalls)).toEqual([1, 1]);
    for (const domain of site.domains) expect(await t.store.backlinks.latest(site.siteId, domain)).not.toBeNull();
    expect(t.stack.queues['monitor-plan'].deadLetters).toEqual([]);
  });

  it('comes back for numbers another run is fetching: the message fails until they are in the cache, then answers from it', async () => {
    const site = await monitoredSite('pending', 1);
    const day = new Date().toISOString().slice(0, 10);
    const datum = { kind: 'backlink-numbers' as const, key: given(site.rivals[0], 'the first rival'), day };
    expect(await t.store.shared.claim(datum, 'another-run', new Date())).toBe(true);
    const monitor = t.stack.queues.monitor;
    const before = monitor.deadLetters.length;
    await monitor.send(runMessage(site.siteId));
    await t.stack.drain();
    // Every delivery found the rival's numbers claimed and not kept: the site's own domain was monitored once.
    expect(monitor.deadLetters.length).toBe(before + 1);
    expect(paidCalls(site.domain)).toEqual([1, 1, 1]);
    expect(await t.store.backlinks.latest(site.siteId, given(site.rivals[0], 'the first rival'))).toBeNull();

    // The other run keeps them: redriven, the message answers the rival from the cache.
    const value = given(
      (await sandboxNumbers.call(new SandboxBacklinkData(), [datum.key], new Meter())).get(datum.key),
      'the get',
    );
    await t.store.shared.put(datum, { value, fetched_at: new Date().toISOString(), data_source: 'sandbox' });
    expect(monitor.redrive()).toBe(before + 1);
    await t.stack.drain();
    expect(await t.store.backlinks.latest(site.siteId, given(site.rivals[0], 'the first rival'))).not.toBeNull();
    expect(numbersCalls(given(site.rivals[0], 'the first rival'))).toBe(0);
  });

  it('stopped midway (its invocation dies after one plan message, a plan dies partway through its block) and run again, monitors every domain once that day and pays nothing twice', async () => {
    await t.stack.drain();
    freeBacklinkData();
    // Ten sites whose ids span two plan blocks of 100 (ids 97 to 106: the site sequence moved on past the
    // file's others, as if sites between had been deleted), so a block has sites on each side of where it dies.
    expect(await t.store.sites.lastId()).toBeLessThan(96);
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: { ...sequenceKey('site'), value: 96 } }));
    const sites: MonitoredSite[] = await Promise.all(
      Array.from({ length: 10 }, (_v, i) => monitoredSite(`stop-${i}`, 2)),
    );
    const plans = t.stack.queues['monitor-plan'];
    const runs = t.stack.queues.monitor;
    const sendPlan = plans.send.bind(plans);
    let plansSent = 0;
    // The schedule's invocation dies after its first plan message (Lambda would retry the invocation).
    const planSpy = jest.spyOn(plans, 'send').mockImplementation(async (body, delayMs) => {
      if (++plansSent > 1) throw new Error('the schedule was stopped');
      return sendPlan(body, delayMs);
    });
    // The runs the plans send are held, then delivered in waves (a worker's concurrency); the first plan
    // dies after 10 of its block's messages (of the file's other sites and these), once, and SQS delivers it again.
    const held: string[] = [];
    let stopped = false;
    jest.spyOn(runs, 'send').mockImplementation(async (body) => {
      if (held.length === 10 && !stopped) {
        stopped = true;
        throw new Error('the plan worker was stopped');
      }
      held.push(body);
    });
    expect(Math.ceil((await t.store.sites.lastId()) / 100)).toBeGreaterThanOrEqual(2);
    await expect(t.stack.runSchedule()).rejects.toThrow('the schedule was stopped');
    await t.stack.drain();
    planSpy.mockRestore();
    await runInWaves(held.splice(0));
    expect(stopped).toBe(true);

    // The retried invocation, then a rerun: every block again, every run again.
    for (const _again of ['retried', 'rerun']) {
      await t.stack.runSchedule();
      await t.stack.drain();
      await runInWaves(held.splice(0));
    }
    await expectPaidOnce(sites);
    for (const site of sites)
      for (const domain of site.domains) expect(await t.store.backlinks.latest(site.siteId, domain)).not.toBeNull();
    expect(runs.deadLetters).toEqual([]);
    expect(plans.deadLetters).toEqual([]);
  }, 180_000);
});

describe('a site’s monitoring run', () => {
  it('delivered again (at once and later) pays nothing twice: each call is made and in the ledger once', async () => {
    const site = await monitoredSite('again', 3);
    const message = runMessage(site.siteId);
    await Promise.all([t.stack.queues.monitor.send(message), t.stack.queues.monitor.send(message)]);
    await t.stack.drain();
    await t.stack.queues.monitor.send(message);
    await t.stack.drain();
    await expectPaidOnce([site]);
  });

  it('has its provider calls in the ledger when it fails after them, and its redelivery pays nothing again', async () => {
    const site = await monitoredSite('fails-after', 2);
    const deadLetters = t.stack.queues.monitor.deadLetters.length;
    jest.spyOn(BacklinkStore.prototype, 'put').mockRejectedValueOnce(new Error('injected store failure'));
    await t.stack.queues.monitor.send(runMessage(site.siteId));
    await t.stack.drain();
    // The first delivery paid and failed writing its snapshots; the second found every domain claimed.
    await expectPaidOnce([site]);
    expect(t.stack.queues.monitor.deadLetters).toHaveLength(deadLetters);
  });

  it('gives back the claim of a domain whose provider failure is worth retrying: the redelivery monitors that domain, and only it', async () => {
    const site = await monitoredSite('retry', 2);
    const flaky = given(site.rivals[1], 'the second rival');
    let failed = false;
    details.mockImplementation(function (this: SandboxBacklinkData, domain, backlinks, meter) {
      if (domain === flaky && !failed) {
        failed = true;
        return Promise.reject(new ProviderError('sandbox', 'try again later', true));
      }
      return sandboxDetail.call(this, domain, backlinks, meter);
    });
    await t.stack.queues.monitor.send(runMessage(site.siteId));
    await t.stack.drain();
    // The numbers came from the cache the second time; the flaky domain's trend and detail were asked again.
    expect(site.domains.map(paidCalls)).toEqual([
      [1, 1, 1],
      [1, 1, 1],
      [1, 2, 2],
    ]);
    expect(await t.store.backlinks.latest(site.siteId, flaky)).not.toBeNull();
    expect(gapCalls(site.domain)).toBe(1);
  });

  it('lands in the dead-letter queue while the provider is down, and redriven once it is back monitors every domain, each paid once (the runbook, walked through)', async () => {
    const site = await monitoredSite('redrive', 2);
    const monitor = t.stack.queues.monitor;
    const before = monitor.deadLetters.length;
    let down = true;
    numbers.mockImplementation(function (this: SandboxBacklinkData, domains, meter) {
      if (down) return Promise.reject(new ProviderError('sandbox', 'provider down', true));
      return sandboxNumbers.call(this, domains, meter);
    });
    await monitor.send(runMessage(site.siteId));
    await t.stack.drain();
    // Every delivery failed (each gave its claims back): the message is in the dead-letter queue, nothing stored.
    expect(monitor.deadLetters.length).toBe(before + 1);
    expect(await t.store.backlinks.latest(site.siteId, site.domain)).toBeNull();

    down = false;
    expect(monitor.redrive()).toBe(before + 1);
    await t.stack.drain();
    expect(monitor.deadLetters).toEqual([]);
    for (const domain of site.domains) expect(await t.store.backlinks.latest(site.siteId, domain)).not.toBeNull();
    // Each domain's successful call was made once; the failed attempts were refused by the provider, unbilled.
    expect(gapCalls(site.domain)).toBe(1);
  });

  it('is skipped when the site’s budget has no room, its claims given back: a rerun with room monitors it once', async () => {
    const site = await monitoredSite('no-room', 1);
    await withStackEnv(t, { SANDBOX_LIST_PRICES: '1' }, async () => {
      await site.client.route('PUT /v1/budget', { body: { daily_usd: 0 } });
      await t.stack.queues.monitor.send(runMessage(site.siteId));
      await t.stack.drain();
      expect(numbers).not.toHaveBeenCalled();
      await site.client.route('PUT /v1/budget', { body: { daily_usd: null } });
      await t.stack.queues.monitor.send(runMessage(site.siteId));
      await t.stack.drain();
      await t.stack.queues.monitor.send(runMessage(site.siteId));
    });
    await expectPaidOnce([site]);
    const budget = (await site.client.route('GET /v1/budget')).body;
    expect(budget.daily).toMatchObject({ reserved_usd: 0, simulated_usd: expect.any(Number) });
    expect(budget.daily.simulated_usd).toBeGreaterThan(0);
  });
});

describe('the daily schedule at the size of a deployment', () => {
  it('fans out: the schedule reads one item and sends a plan message per 100 sites, each plan queues its sites’ runs, and no invocation walks every site', async () => {
    await t.stack.drain();
    // A block of 100 sites more, written straight into the table (what the schedule and the plans read of a
    // site): full blocks and a partial one. The thousands of sites a deployment has are the scale suite's.
    await seedMonitoredSites(t, 100, 0, undefined, (await t.store.sites.lastId()) + 1);
    const last = await t.store.sites.lastId();
    const plans = t.stack.queues['monitor-plan'];
    const runs = t.stack.queues.monitor;
    const planned = jest.spyOn(plans, 'send');
    // The runs are counted, not delivered: the tests above show what they do.
    const sentRuns = jest.spyOn(runs, 'send').mockResolvedValue();
    plans.pause();
    try {
      const before = { requests: t.stack.dynamo.requests(), plans: plans.sent };
      expect(await t.stack.runSchedule()).toEqual({ sites: last, plans: Math.ceil(last / 100) });
      // The schedule's invocation: one GetItem (the site sequence), and a message per block of 100 sites.
      expect(t.stack.dynamo.requests() - before.requests).toBe(1);
      expect(plans.sent - before.plans).toBe(Math.ceil(last / 100));
      expect(sentRuns).not.toHaveBeenCalled();
      const blocks = planned.mock.calls.map(([body]) => MonitorPlanMessage.parse(JSON.parse(body)));
      for (const block of blocks) expect(block.last_site_id - block.first_site_id + 1).toBeLessThanOrEqual(100);
      expect(Math.min(...blocks.map((block) => block.first_site_id))).toBe(1);
      expect(Math.max(...blocks.map((block) => block.last_site_id))).toBe(last);

      // Each plan message reads its block's sites (one BatchGetItem) and each one's competitors (a Query),
      // claims each domain's numbers of the day (a conditional put), keeps them (BatchWriteItems of 25),
      // records each paying site's lines (a BatchWriteItem) and sends the runs: a few requests a site.
      const planning = t.stack.dynamo.requests();
      plans.resume();
      await plans.idle();
      expect(t.stack.dynamo.requests() - planning).toBeLessThanOrEqual(Math.ceil(last / 100) + 4 * last);
      // A run for each site there is (an id with no site, as the ones skipped above, gets none).
      const siteIds = sentRuns.mock.calls.map(([body]) => MonitorMessage.parse(JSON.parse(body)).site_id);
      const existing = await t.store.sites.getMany(Array.from({ length: last }, (_v, i) => i + 1));
      expect(siteIds.sort((a, b) => a - b)).toEqual(existing.map((site) => site.site_id));
    } finally {
      plans.resume();
    }
    expect(plans.deadLetters).toEqual([]);
  }, 120_000);
});
