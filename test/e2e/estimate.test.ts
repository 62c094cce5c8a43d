import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/mini';
import { ErrorBody, LIMITS, roundUsd, ToolEstimate } from '@cm/contract';
import {
  backlinkLinksPrice,
  monitorWorkPrice,
  keywordMetricsPrice,
  linkGapPrice,
  serpPrice,
  webResearchPrice,
} from '@cm/providers';
import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';
import { given, type ToolArgs } from '../helpers/client';
import { siteClient, startTestStack, warmKeyCheck, type SiteClient, type TestStack } from '../helpers/local';

/* The price before the call: estimate: true over REST and MCP, and approval over the site's threshold (confirm tokens). */

let t: TestStack;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '300' } });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
});

const SERP = serpPrice(LIMITS.serpDepth);

/** What spending would change: the site's ledger lines and its day window. */
async function spendOf(site: SiteClient) {
  const usage = (await site.client.route('GET /v1/usage')).body;
  const budget = (await site.client.route('GET /v1/budget')).body;
  return { calls: usage.calls, spent: budget.daily.spent_usd, reserved: budget.daily.reserved_usd };
}

const estimateOf = (body: unknown) => ToolEstimate.parse(body);
/** A 428 approval_required: the error, with the token a confirmed call sends and the estimate it approves. */
const Approval = z.extend(ErrorBody, {
  estimate: ToolEstimate,
  confirm: z.string(),
  confirm_expires_at: z.string(),
  confirm_refused: z.optional(z.string()),
});

async function mcpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'estimate-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }),
  );
  clients.push(client);
  return client;
}

/** A refusal as a 428 approval_required. */
const approval = <R extends { body: unknown }>(reply: R) => ({ ...reply, body: Approval.parse(reply.body) });
/** An MCP tool result's text content. */
const McpText = z.object({ content: z.array(z.object({ text: z.string() })) });
/** An MCP tool result that is a 428 approval_required. */
const approvalOf = (result: unknown) =>
  Approval.parse(JSON.parse(given(McpText.parse(result).content[0], 'the first content').text));

describe('estimate: true', () => {
  it('lists the calls get_keywords would make at list prices, and spends, stores and reserves nothing', async () => {
    const site = await siteClient(t, 'Estimates');
    const topic = (await site.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } })).body.row.id;
    const input = { topic_id: topic, seeds: ['trail shoes', 'road shoes', 'hiking boots'] };
    const before = await spendOf(site);

    const estimate = (await site.client.tool('get_keywords', { ...input, estimate: true })).body;
    expect(estimate).toMatchObject({
      estimate: true,
      tool: 'get_keywords',
      data_source: 'sandbox',
      simulated: true,
      calls: [
        {
          provider: 'sandbox',
          endpoint: 'keyword_metrics',
          count: 1,
          unit_usd: keywordMetricsPrice(3),
          total_usd: keywordMetricsPrice(3),
        },
      ],
      total_usd: keywordMetricsPrice(3),
      budget: { remaining_usd: null, window: null },
      confirm_above_usd: null,
      approval_required: false,
    });
    expect(estimate.notes.join(' ')).toMatch(/sandbox.*list prices.*no money/);
    // No provider call (the ledger records every sandbox call), no reservation, nothing stored.
    expect(await spendOf(site)).toEqual(before);
    expect((await site.client.tool('db_select', { table: 'cm_keywords' })).body.rows).toEqual([]);

    // The estimate is the run's price: the call then costs what it said.
    const run = await site.client.tool('get_keywords', input);
    expect(run.status).toBe(200);
    expect(run.body.cost_usd).toBeLessThanOrEqual(estimate.total_usd);
    expect((await spendOf(site)).calls).toBe(before.calls + 1);
  });

  it('prices a keyword checked with no data at nothing, as its run charges, however it is named', async () => {
    const site = await siteClient(t, 'No data twice');
    const topic = (await site.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Boots' } })).body.row.id;
    const nothing = 'supercalifragilisticexpialidocious boots';
    const first = await site.client.tool('get_keywords', { topic_id: topic, seeds: [nothing] });
    expect(first.body.cost_usd).toBeGreaterThan(0);
    const id = given(first.body.keywords[0], 'the keyword').id;
    const before = await spendOf(site);
    // Each named differently; the last with a new seed, the one keyword pulled.
    const inputs: [ToolArgs<'get_keywords'>, number][] = [
      [{ keyword_id: id }, 0],
      [{ seeds: [nothing] }, 0],
      [{ topic_id: topic, seeds: [nothing, 'trail boots'] }, keywordMetricsPrice(1)],
    ];
    for (const [input, price] of inputs) {
      const estimate = (await site.client.tool('get_keywords', { ...input, estimate: true })).body;
      expect(estimate.free).toEqual([{ what: 'keywords', items: [nothing], reason: expect.stringMatching(/30 days/) }]);
      const run = await site.client.tool('get_keywords', input);
      expect([run.status, run.body.no_data]).toEqual([200, [nothing]]);
      expect(run.body.cost_usd).toBeCloseTo(estimate.total_usd, 3);
      expect(estimate.total_usd).toBe(price);
    }
    // Only the new seed was pulled: one call.
    expect((await spendOf(site)).calls).toBe(before.calls + 1);
  });

  it('shows what stored data makes free once a real call stored it: SERPs, research, monitored competitors', async () => {
    const site = await siteClient(t, 'Free by storage', { domain: 'free.example.com' });
    const list = { keyword: 'trail running shoes', depth: 'list' } as const;
    const first = (await site.client.tool('serp_landscape', { ...list, estimate: true })).body;
    expect(first.calls).toEqual([
      { provider: 'sandbox', endpoint: 'serp_organic', count: 1, unit_usd: SERP, total_usd: SERP },
    ]);
    expect(first.free).toEqual([]);
    expect(given((await site.client.tool('serp_landscape', list)).body.list, 'the list').fetched).toEqual([
      'trail running shoes',
    ]);
    const again = (await site.client.tool('serp_landscape', { ...list, estimate: true })).body;
    expect(again.calls).toEqual([]);
    expect(again.total_usd).toBe(0);
    expect(again.free).toEqual([
      { what: 'serp', items: ['trail running shoes'], reason: expect.stringMatching(/stored/) },
    ]);

    const web = { mode: 'web', seed: 'how long do trail shoes last' } as const;
    const research = (await site.client.tool('research', { ...web, estimate: true })).body;
    expect(research.calls).toEqual([
      expect.objectContaining({
        endpoint: 'research_web',
        count: 1,
        unit_usd: webResearchPrice('web', DEFAULT_BEDROCK_MODEL),
      }),
    ]);
    expect((await site.client.tool('research', { ...web, wait_ms: 10_000 })).body).toMatchObject({
      status: 'succeeded',
    });
    const repeated = (await site.client.tool('research', { ...web, estimate: true })).body;
    expect(repeated).toMatchObject({ calls: [], total_usd: 0, free: [{ what: 'research', items: [web.seed] }] });

    const competitor = { domain: 'rival.example.com' };
    const firstRun = monitorWorkPrice({ numbers: 1, trends: 1, details: 1, gaps: 0 });
    const adding = (await site.client.tool('add_competitor', { ...competitor, estimate: true })).body;
    expect(adding.calls).toEqual([
      {
        provider: 'sandbox',
        endpoint: 'backlinks_profile',
        count: 2,
        // A first run: its own bulk numbers, trend and detail, what queuing it reserves.
        unit_usd: firstRun,
        total_usd: roundUsd(2 * firstRun),
      },
      {
        provider: 'sandbox',
        endpoint: 'backlinks_link_gap',
        count: 1,
        unit_usd: linkGapPrice(100),
        total_usd: linkGapPrice(100),
      },
    ]);
    expect((await site.client.tool('db_select', { table: 'cm_competitors' })).body.rows).toEqual([]);
    expect((await site.client.tool('add_competitor', competitor)).body.created).toBe(true);
    await t.stack.drain();
    const added = (await site.client.tool('add_competitor', { ...competitor, estimate: true })).body;
    expect(added).toMatchObject({ calls: [], free: [{ what: 'competitor', items: ['rival.example.com'] }] });

    // Backlinks: tracked domains answer from monitoring's snapshots; links are pulled live.
    const overview = (await site.client.tool('serp_backlinks', { estimate: true })).body;
    expect(overview.calls).toEqual([]);
    expect(overview.free[0]?.items).toEqual([
      expect.stringMatching(/^free\.example\.com /),
      expect.stringMatching(/^rival\.example\.com /),
    ]);
    const links = (
      await site.client.tool('serp_backlinks', { scope: 'site', depth: 'links', limit: 300, estimate: true })
    ).body;
    expect(links.calls).toEqual([
      expect.objectContaining({ endpoint: 'backlinks_links', unit_usd: backlinkLinksPrice(300) }),
    ]);
  });

  it('prices what the run then does: the same SERPs pulled, skipped and billed', async () => {
    const site = await siteClient(t, 'No drift');
    const topic = (await site.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } })).body.row.id;
    await site.client.tool('get_keywords', { topic_id: topic, seeds: ['trail shoes', 'road shoes', 'hiking boots'] });
    await site.client.tool('serp_landscape', { keyword: 'road shoes', depth: 'list' });
    const list = { topic_id: topic, depth: 'list' } as const;
    const estimate = (await site.client.tool('serp_landscape', { ...list, estimate: true })).body;
    const before = await spendOf(site);
    const run = (await site.client.tool('serp_landscape', list)).body;
    const ran = given(run.list, 'the list');
    expect(estimate.calls).toEqual([expect.objectContaining({ endpoint: 'serp_organic', count: ran.fetched.length })]);
    expect(estimate.free).toEqual([expect.objectContaining({ what: 'serp', items: ran.skipped })]);
    expect(ran.skipped).toEqual(['road shoes']);
    expect(run.cost_usd).toBe(estimate.total_usd);
    expect((await spendOf(site)).calls).toBe(before.calls + ran.fetched.length);
  });

  it('says the budget left, and answers the same over MCP, where it passes the output schema and spends nothing', async () => {
    const site = await siteClient(t, 'Estimate over MCP');
    await site.client.route('PUT /v1/budget', { body: { daily_usd: 1 } });
    const rest = (await site.client.tool('serp_keyword_refresh', { keyword: 'trail shoes', estimate: true })).body;
    expect(rest).toMatchObject({ total_usd: SERP, budget: { remaining_usd: 1, window: 'day' } });
    expect(rest.notes[0]).toBe(`${LIMITS.refreshesPerDay} of ${LIMITS.refreshesPerDay} refreshes left today`);
    const before = await spendOf(site);

    const client = await mcpClient(site.key);
    const result = await client.callTool({
      name: 'serp_keyword_refresh',
      arguments: { keyword: 'trail shoes', estimate: true },
    });
    expect(result.isError).toBeFalsy();
    expect(estimateOf(result.structuredContent)).toEqual(rest);
    expect(await spendOf(site)).toEqual(before);
  });
});

describe('approval over confirm_above_usd', () => {
  const refresh = (site: SiteClient, keyword: string, extra: { confirm?: string } = {}) =>
    site.client.tool('serp_keyword_refresh', { keyword, ...extra });
  /** The same call, refused: its error, which a 428 approval_required must be. */
  const refreshAsked = async (site: SiteClient, keyword: string, extra: { confirm?: string } = {}) =>
    approval(await site.client.toolError('serp_keyword_refresh', { keyword, ...extra }));

  it('is set, shown and cleared by PUT /v1/budget; a call over it is 428 approval_required with the estimate and a token, and runs once with it', async () => {
    const site = await siteClient(t, 'Approval');
    expect((await site.client.route('GET /v1/budget')).body.confirm_above_usd).toBeNull();
    const put = await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0.001 } });
    expect(put.body.confirm_above_usd).toBe(0.001);
    expect((await site.client.route('GET /v1/budget')).body).toMatchObject({
      confirm_above_usd: 0.001,
      daily: { limit_usd: null },
    });
    const before = await spendOf(site);

    const asked = await refreshAsked(site, 'trail shoes');
    expect(asked.status).toBe(428);
    expect(asked.body).toMatchObject({
      code: 'approval_required',
      confirm: expect.stringMatching(/^cfm_[\w-]{32}$/),
      estimate: { total_usd: SERP, approval_required: true, confirm_above_usd: 0.001 },
    });
    const expiresIn = Date.parse(asked.body.confirm_expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    expect(await spendOf(site)).toEqual(before);
    // An estimate is never held back by the threshold.
    expect(
      (await site.client.tool('serp_keyword_refresh', { keyword: 'trail shoes', estimate: true })).body
        .approval_required,
    ).toBe(true);

    const confirmed = await refresh(site, 'trail shoes', { confirm: asked.body.confirm });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.row.keyword).toBe('trail shoes');
    expect((await spendOf(site)).calls).toBe(before.calls + 1);

    const reused = await refreshAsked(site, 'trail shoes', { confirm: asked.body.confirm });
    expect(reused.status).toBe(428);
    expect(reused.body.confirm_refused).toBe('used');
    expect(reused.body.confirm).not.toBe(asked.body.confirm);
    expect((await spendOf(site)).calls).toBe(before.calls + 1);

    // A call at or under the threshold runs as before; null clears it.
    expect(
      (await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: SERP } })).body.confirm_above_usd,
    ).toBe(SERP);
    expect((await refresh(site, 'road shoes')).status).toBe(200);
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    expect((await refreshAsked(site, 'hiking shoes')).status).toBe(428);
    const cleared = await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: null } });
    expect(cleared.body.confirm_above_usd).toBeNull();
    expect((await refresh(site, 'hiking shoes')).status).toBe(200);
  });

  it('runs a token once when two calls send it at the same time', async () => {
    const site = await siteClient(t, 'Concurrent confirm');
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    const { confirm } = (await refreshAsked(site, 'trail shoes')).body;
    const before = await spendOf(site);
    const replies = await Promise.all(
      [1, 2, 3].map(() => site.client.toolOutcome('serp_keyword_refresh', { keyword: 'trail shoes', confirm })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 428, 428]);
    expect(replies.filter((r) => r.status === 428).map((r) => r.error?.confirm_refused)).toEqual(['used', 'used']);
    expect((await spendOf(site)).calls).toBe(before.calls + 1);
  });

  it('refuses a token for another input or another tool (and keeps it for its own), an unknown one and an expired one', async () => {
    const site = await siteClient(t, 'Refused tokens');
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    const { confirm } = (await refreshAsked(site, 'trail shoes')).body;

    const otherInput = await refreshAsked(site, 'road shoes', { confirm });
    expect(otherInput.status).toBe(428);
    expect(otherInput.body.confirm_refused).toBe('other_input');
    expect(otherInput.body.message).toMatch(/another input/);
    // A SERP no other site pulled today: the shared cache would answer one that was, free, with no approval asked.
    const otherTool = approval(
      await site.client.toolError('serp_landscape', { keyword: 'other tool shoes', depth: 'list', confirm }),
    );
    expect(otherTool.status).toBe(428);
    expect(otherTool.body.confirm_refused).toBe('other_tool');
    expect((await site.client.tool('db_select', { table: 'cm_keywords' })).body.rows).toEqual([]);
    // Refusals did not use it up: its own call runs.
    expect((await refresh(site, 'trail shoes', { confirm })).status).toBe(200);

    expect((await refreshAsked(site, 'trail shoes', { confirm: 'cfm_made-up' })).body.confirm_refused).toBe('unknown');

    // 16 minutes on, on the stack's clock (it runs in this process): the token has expired.
    const asked = (await refreshAsked(site, 'old shoes')).body;
    const realNow = Date.now.bind(Date);
    const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 16 * 60_000);
    let expired;
    try {
      expired = await refreshAsked(site, 'old shoes', { confirm: asked.confirm });
    } finally {
      later.mockRestore();
    }
    expect(expired.status).toBe(428);
    expect(expired.body.confirm_refused).toBe('expired');
    expect(expired.body.message).toMatch(/expired \(tokens last 15 minutes\)/);
  });

  it('asks again when the estimate grew past the approved one, and still refuses 402 past a budget limit after confirmation', async () => {
    const site = await siteClient(t, 'Grown');
    const topic = (await site.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } })).body.row.id;
    // Keywords no other site lists today, whose SERPs are paid (the shared cache would answer others free).
    await site.client.tool('get_keywords', { topic_id: topic, seeds: ['grown trail shoes'] });
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    const list = { topic_id: topic, depth: 'list' } as const;
    const asked = approval(await site.client.toolError('serp_landscape', list)).body;
    expect(asked.estimate.total_usd).toBe(SERP);
    // The topic gains a keyword: the same input would now pull two SERPs.
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: null } });
    await site.client.tool('get_keywords', { topic_id: topic, seeds: ['grown road shoes'] });
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    const grown = approval(await site.client.toolError('serp_landscape', { ...list, confirm: asked.confirm }));
    expect(grown.status).toBe(428);
    expect(grown.body).toMatchObject({ confirm_refused: 'grown', estimate: { total_usd: roundUsd(2 * SERP) } });

    await site.client.route('PUT /v1/budget', { body: { daily_usd: SERP } });
    const before = await spendOf(site);
    const refused = await site.client.toolError('serp_landscape', { ...list, confirm: grown.body.confirm });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('budget_exceeded');
    expect((await spendOf(site)).calls).toBeLessThanOrEqual(before.calls + 1);
  });

  it('works over MCP: an isError approval_required result with the token, then the confirmed call', async () => {
    const site = await siteClient(t, 'Approval over MCP');
    await site.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0 } });
    const client = await mcpClient(site.key);
    const asked = await client.callTool({ name: 'serp_keyword_refresh', arguments: { keyword: 'trail shoes' } });
    expect(asked.isError).toBe(true);
    const error = approvalOf(asked);
    expect(error).toMatchObject({ code: 'approval_required', estimate: { total_usd: SERP } });
    const before = await spendOf(site);
    const done = await client.callTool({
      name: 'serp_keyword_refresh',
      arguments: { keyword: 'trail shoes', confirm: error.confirm },
    });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ row: { keyword: 'trail shoes' }, cost_usd: SERP });
    expect((await spendOf(site)).calls).toBe(before.calls + 1);
  });
});

describe('round trips', () => {
  it('adds no DynamoDB round trip to a paid call without a threshold that reserves (the limits read is shared), one to a call that reserves nothing', async () => {
    const site = await siteClient(t, 'Round trips');
    await t.stack.drain();
    const requests = () => t.stack.dynamo.requests();
    await site.client.tool('serp_keyword_refresh', { keyword: 'warm up' });
    await warmKeyCheck(t, site.key);
    let before = requests();
    expect((await site.client.tool('serp_keyword_refresh', { keyword: 'trail shoes' })).status).toBe(200);
    const normal = requests() - before;
    // serp_backlinks of a site without backlink data yet answers at no cost: nothing reserves, so the limits read is added.
    await warmKeyCheck(t, site.key);
    before = requests();
    await site.client.tool('serp_backlinks', {});
    const free = requests() - before;
    // Before approval existed: 8 and 3; before reservations had items of their own, 8 and 4 (the hold's put and
    // delete are 2 more); before the shared cache of public data, 10 (the refresh keeps its SERP there: a put);
    // before pending ledger lines, 11 (the pending line is a put beside the hold's, in the same round trip).
    // The site's limits item is read once per call, and a reservation reuses it.
    expect({ normal, free }).toEqual({ normal: 12, free: 4 });
  });
});
