import { utcDay } from '@cm/core';
import { monitoringMonthPrice, SandboxBacklinkData } from '@cm/providers';
import { scheduledCapUsd } from '@cm/tools';
import * as z from 'zod/mini';
import { fakeClock } from '../helpers/clock';
import { useTestStack, withStackEnv } from '../helpers/local';
import { captureOutput } from '../helpers/output';
import { apiClient } from '../helpers/client';

/*
 * No bill run up unseen (issue 49): add_competitor says what monitoring its domain costs a month, and a
 * site can pause its competitors' monitoring (REST and MCP), after which the daily runs take only its own
 * domain; the daily schedule stops short of the deployment's daily cap, and says so. Over HTTP on the
 * sandbox; provider calls counted by spies that call through.
 */

const t = useTestStack();
// Today's noon (UTC), held: the schedule's runs of a test stay one day's, whenever the file runs.
beforeAll(() => fakeClock(Date.parse(`${new Date().toISOString().slice(0, 10)}T12:00:00.000Z`)));
afterAll(() => jest.useRealTimers());

let numbers: jest.SpiedFunction<SandboxBacklinkData['numbers']>;
let gaps: jest.SpiedFunction<SandboxBacklinkData['linkGap']>;
beforeEach(() => {
  numbers = jest.spyOn(SandboxBacklinkData.prototype, 'numbers');
  gaps = jest.spyOn(SandboxBacklinkData.prototype, 'linkGap');
});
afterEach(() => jest.restoreAllMocks());

/** The domains of `ours` whose daily numbers the provider was asked for (the schedule runs every site of the stack). */
const profiled = (ours: readonly string[]) =>
  numbers.mock.calls
    .flatMap(([domains]) => domains)
    .filter((domain) => ours.includes(domain))
    .sort();

async function site(name: string) {
  const domain = `${name}.example.com`;
  const created = await t.newSite(name, { domain, locale: 'US/en' });
  return { ...created, domain, client: apiClient(t, created.key) };
}

/** What a test reads of a JSON-RPC answer to tools/call: whether its result is an error, or it is one. */
const McpAnswer = z.object({
  result: z.optional(z.looseObject({ isError: z.optional(z.boolean()) })),
  error: z.optional(z.looseObject({ message: z.string() })),
});

/** A tools/call over MCP, as the JSON-RPC answer has it. */
async function mcpCall(key: string, name: string, args: unknown) {
  const reply = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return McpAnswer.parse(await reply.json());
}

const competitorMonth = () => monitoringMonthPrice('competitor');
const siteMonth = () => monitoringMonthPrice('site');

describe("add_competitor's monthly cost", () => {
  it('says in its reply and its estimate what monitoring the domain costs a month, also when it is monitored already', async () => {
    const s = await site('priced');
    const month = competitorMonth();
    const cost = { domain: 'rival.com', month_usd: month.usd, at_most_month_usd: month.at_most_usd, paused: false };

    const estimate = await s.client.tool('add_competitor', { domain: 'rival.com', estimate: true });
    expect(estimate.status).toBe(200);
    expect(estimate.body).toMatchObject({ estimate: true, monitoring: cost });
    expect(estimate.body.notes).toContain(
      `monitoring rival.com daily costs $${month.usd} a month at list prices (at most $${month.at_most_usd})`,
    );

    const added = await s.client.tool('add_competitor', { domain: 'https://www.Rival.com/path' });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ created: true, monitoring: cost });
    await t.stack.drain();

    // Monitored already: the estimate queues nothing and still says what a month of it costs.
    const again = await s.client.tool('add_competitor', { domain: 'rival.com', estimate: true });
    expect(again.body).toMatchObject({ total_usd: 0, monitoring: cost });
    expect((await s.client.tool('add_competitor', { domain: 'rival.com' })).body).toMatchObject({
      created: false,
      monitoring: cost,
    });
  });
});

describe("pausing a site's competitor monitoring", () => {
  it('PUT /v1/monitoring pauses it: the daily run takes only the site’s own domain and its gap; resumed, the competitors again', async () => {
    const s = await site('paused');
    const ours = [s.domain, 'rival-a.com', 'rival-b.com', 'rival-c.com'];
    for (const domain of ['rival-a.com', 'rival-b.com'])
      expect((await s.client.tool('add_competitor', { domain })).status).toBe(200);
    await t.stack.drain();
    numbers.mockClear();
    gaps.mockClear();

    const before = await s.client.route('GET /v1/monitoring');
    expect(before.status).toBe(200);
    const [own, rival] = [siteMonth(), competitorMonth()];
    expect(before.body).toEqual({
      competitors_paused: false,
      paused_at: null,
      domains: [
        { domain: s.domain, month_usd: own.usd, at_most_month_usd: own.at_most_usd, paused: false },
        { domain: 'rival-a.com', month_usd: rival.usd, at_most_month_usd: rival.at_most_usd, paused: false },
        { domain: 'rival-b.com', month_usd: rival.usd, at_most_month_usd: rival.at_most_usd, paused: false },
      ],
      month_usd: Number((own.usd + 2 * rival.usd).toFixed(6)),
      at_most_month_usd: Number((own.at_most_usd + 2 * rival.at_most_usd).toFixed(6)),
    });

    const paused = await s.client.route('PUT /v1/monitoring', { body: { competitors_paused: true } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      competitors_paused: true,
      paused_at: new Date().toISOString(),
      month_usd: own.usd,
      at_most_month_usd: own.at_most_usd,
    });
    expect(paused.body.domains.map((d) => d.paused)).toEqual([false, true, true]);

    // Tomorrow's schedule: the site's own domain, with its gap against the competitors tracked; no competitor.
    const tomorrow = new Date(Date.now() + 86_400_000);
    await t.stack.runSchedule(tomorrow);
    await t.stack.drain();
    expect(profiled(ours)).toEqual([s.domain]);
    // Its link gap stays the one against the competitors tracked (none was added: not taken again).
    const kept = await t.store.backlinks.latest(s.siteId, s.domain);
    expect([kept?.day, [...(kept?.gap_against ?? [])].sort()]).toEqual([
      utcDay(tomorrow),
      ['rival-a.com', 'rival-b.com'],
    ]);
    expect(gaps).not.toHaveBeenCalled();
    expect((await t.store.backlinks.latest(s.siteId, 'rival-a.com'))?.day).not.toBe(
      tomorrow.toISOString().slice(0, 10),
    );

    // add_competitor says so, and still populates the new competitor's profile (spec: add_competitor makes
    // it appear with its backlink profile) with a first run, and the site's gap, now against rival-c too;
    // the site's numbers of today are in the shared cache already. Its daily runs wait for the resume.
    numbers.mockClear();
    gaps.mockClear();
    const added = await s.client.tool('add_competitor', { domain: 'rival-c.com' });
    expect(added.body).toMatchObject({ created: true, monitoring: { domain: 'rival-c.com', paused: true } });
    const estimate = await s.client.tool('add_competitor', { domain: 'rival-d.com', estimate: true });
    expect(estimate.body.monitoring).toMatchObject({ paused: true });
    expect(estimate.body.notes.join('\n')).toContain('competitor monitoring is paused');
    expect(estimate.body.calls).toEqual([
      expect.objectContaining({ endpoint: 'backlinks_profile', count: 2 }),
      expect.objectContaining({ endpoint: 'backlinks_link_gap', count: 1 }),
    ]);
    await t.stack.drain();
    expect(profiled(ours)).toEqual(['rival-c.com']);
    expect(gaps.mock.calls.map(([domain, against]) => [domain, [...against].sort()])).toEqual([
      [s.domain, ['rival-a.com', 'rival-b.com', 'rival-c.com']],
    ]);
    expect((await t.store.backlinks.latest(s.siteId, 'rival-c.com'))?.day).toBe(utcDay(new Date()));
    numbers.mockClear();
    await t.stack.runSchedule(new Date(Date.now() + 3 * 86_400_000));
    await t.stack.drain();
    expect(profiled(ours)).toEqual([s.domain]);

    // Resumed: the next schedule monitors every competitor again.
    numbers.mockClear();
    const resumed = await s.client.route('PUT /v1/monitoring', { body: { competitors_paused: false } });
    expect(resumed.body).toMatchObject({ competitors_paused: false, paused_at: null });
    const after = new Date(Date.now() + 2 * 86_400_000);
    await t.stack.runSchedule(after);
    await t.stack.drain();
    expect(profiled(ours)).toEqual([...ours].sort());
  }, 60_000);

  it("queues a competitor's first run alone when added while paused to a site whose own domain is no domain", async () => {
    const created = await t.newSite('no-domain', { domain: 'intranet', locale: 'US/en' });
    const client = apiClient(t, created.key);
    expect((await client.route('GET /v1/monitoring')).body).toMatchObject({ domains: [], month_usd: 0 });
    await client.route('PUT /v1/monitoring', { body: { competitors_paused: true } });
    const sent = t.stack.queues.monitor.sent;
    const added = await client.tool('add_competitor', { domain: 'rival-e.com' });
    expect(added.body).toMatchObject({ created: true, monitoring_deferred: 0, monitoring: { paused: true } });
    expect(t.stack.queues.monitor.sent).toBe(sent + 1);
    await t.stack.drain();
    expect(await t.store.backlinks.latest(created.siteId, 'rival-e.com')).not.toBeNull();
  });

  it('refuses a body that is not a pause or a resume with 400 and changes nothing; a second pause keeps when it began', async () => {
    const s = await site('refused');
    for (const body of [{}, { competitors_paused: 'yes' }, { competitors_paused: null }]) {
      const reply = await s.client.routeError('PUT /v1/monitoring', { body });
      expect([reply.status, reply.body.error]).toEqual([400, 'validation_failed']);
    }
    expect((await s.client.route('GET /v1/monitoring')).body.competitors_paused).toBe(false);
    const first = (await s.client.route('PUT /v1/monitoring', { body: { competitors_paused: true } })).body.paused_at;
    jest.advanceTimersByTime(60_000);
    expect((await s.client.route('PUT /v1/monitoring', { body: { competitors_paused: true } })).body.paused_at).toBe(
      first,
    );
  });

  it("is a spend setting of REST's, as the budget is: no MCP tool sets it; one site's pause is not another's", async () => {
    const s = await site('mcp-paused');
    const other = await site('mcp-other');
    await s.client.route('PUT /v1/monitoring', { body: { competitors_paused: true } });
    expect((await s.client.route('GET /v1/monitoring')).body.competitors_paused).toBe(true);
    expect((await other.client.route('GET /v1/monitoring')).body.competitors_paused).toBe(false);
    const resumed = await mcpCall(s.key, 'monitoring', { competitors_paused: false });
    expect(resumed.result?.isError ?? resumed.error !== undefined).toBe(true);
    expect((await s.client.route('GET /v1/monitoring')).body.competitors_paused).toBe(true);
  });
});

describe("the daily schedule under the deployment's daily cap", () => {
  /** Spends `usd` of the deployment's day under a cap of $1, as sites' calls would have (spread over the cap's parts). */
  async function deploymentSpent(usd: number) {
    const hold = { id: `spent-${usd}`, expiresAt: Date.now() + 60_000 };
    const day = utcDay(new Date());
    expect(await t.store.budgets.reserve('deployment', day, hold, usd, { day: 1 })).toMatchObject({ reserved: true });
    await t.store.budgets.settle('deployment', day, hold, usd, false);
  }

  // $0.8 of the deployment's day spent (the day is the stack's, and these tests add no spend to it under a cap of $1).
  beforeAll(() => deploymentSpent(0.8));

  it("starts nothing once the day's spend reaches the share its work may take, and says so (its result, a log line, the metric)", async () => {
    const s = await site('stopped');
    await s.client.tool('add_competitor', { domain: 'stopped-rival.com' });
    await t.stack.drain();
    numbers.mockClear();
    const output = captureOutput({ level: 'WARN', metrics: true });
    try {
      await withStackEnv(t, { GLOBAL_DAILY_BUDGET_USD: '1', SANDBOX_LIST_PRICES: '1' }, async () => {
        const planned = await t.stack.runSchedule(new Date(Date.now() + 86_400_000));
        expect(planned).toEqual({
          sites: 0,
          plans: 0,
          budget: { cap_usd: 1, scheduled_cap_usd: scheduledCapUsd(1), used_usd: 0.8, stopped: true },
        });
      });
      expect(numbers).not.toHaveBeenCalled();
      expect(
        output.logs(
          "the daily schedule's work stopped: the deployment's daily budget is down to the share kept for the sites' own calls",
        ),
      ).toHaveLength(1);
      expect(output.metric('scheduled_work_stopped').map((m) => [m.value, m.dimensions])).toEqual([[1, ['service']]]);
    } finally {
      output.stop();
    }
  });

  it("defers a site's run that would pass that share, while a caller's paid call still fits under the cap", async () => {
    const s = await site('squeezed');
    await s.client.tool('add_competitor', { domain: 'squeezed-rival.com' });
    await t.stack.drain();
    numbers.mockClear();
    const output = captureOutput({ level: 'WARN', metrics: true });
    try {
      // $0.8 spent of $1.08: the schedule's work may take $0.81, less than this site's run reserves (its
      // two domains' numbers, a bulk batch of their own: $0.06); callers may take the rest. Its run of
      // tomorrow alone, as the schedule's plan queues it.
      await withStackEnv(t, { GLOBAL_DAILY_BUDGET_USD: '1.08', SANDBOX_LIST_PRICES: '1' }, async () => {
        const day = utcDay(new Date(Date.now() + 86_400_000));
        await t.stack.queues.monitor.send(
          JSON.stringify({ site_id: s.siteId, requested_at: new Date().toISOString(), day }),
        );
        await t.stack.drain();
        expect(profiled([s.domain, 'squeezed-rival.com'])).toEqual([]);
        const refresh = await s.client.tool('serp_keyword_refresh', { keyword: 'squeezed shoes' });
        expect(refresh.status).toBe(200);
      });
      expect(output.metric('scheduled_work_stopped').map((m) => m.value)).toEqual([1]);
      expect(output.metric('monitor_runs_deferred').map((m) => m.value)).toEqual([2]);
      expect(
        output.logs(
          "the daily schedule's work stopped: the deployment's daily budget is down to the share kept for the sites' own calls",
        ),
      ).toEqual([expect.objectContaining({ site_id: s.siteId })]);
    } finally {
      output.stop();
    }
  }, 60_000);
});
