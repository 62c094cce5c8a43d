import { roundUsd } from '@cm/contract';
import { dataForSeoPrice, ENDPOINTS, webResearchPrice } from '@cm/providers';
import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';
import { startTestStack, type TestStack } from '../helpers/local';
import { whileQueued } from '../helpers/research';
import { apiClient } from '../helpers/client';

/* Budgets over HTTP, with the sandbox charging list prices (SANDBOX_LIST_PRICES=1). */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '1500' } });
}, 60_000);
afterAll(() => t.stop());

const SERP = dataForSeoPrice(ENDPOINTS.serpOrganic, 20);
const DAILY = roundUsd(2 * SERP + 0.001);
const tool = (name: string, body: unknown, key?: string) => t.call('POST', `/v1/tools/${name}`, body, { key });
const ledgerCalls = async (key?: string) => (await apiClient(t, key).route('GET /v1/usage')).body.calls;

it('answers an unset budget as no limits, takes limits by PUT, and refuses a call that would pass the daily limit with 402 before any provider call', async () => {
  const { key } = await t.newSite('Daily');
  expect((await t.call('GET', '/v1/budget', undefined, { key })).body.daily).toMatchObject({
    limit_usd: null,
    spent_usd: 0,
    reserved_usd: 0,
  });
  const put = await t.call('PUT', '/v1/budget', { daily_usd: DAILY, monthly_usd: 100 }, { key });
  expect(put.status).toBe(200);
  expect(put.body.monthly.limit_usd).toBe(100);

  const first = await tool('serp_keyword_refresh', { keyword: 'trail shoes' }, key);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({
    cost_usd: SERP,
    simulated: true,
    budget: { window: 'day', remaining_usd: roundUsd(DAILY - SERP) },
  });
  expect((await tool('serp_keyword_refresh', { keyword: 'road shoes' }, key)).status).toBe(200);
  const calls = await ledgerCalls(key);

  const refused = await tool('serp_keyword_refresh', { keyword: 'hiking shoes' }, key);
  expect(refused.status).toBe(402);
  expect(refused.body).toMatchObject({
    code: 'budget_exceeded',
    window: 'day',
    limit_usd: DAILY,
    spent_usd: 2 * SERP,
    scope: 'site',
  });
  expect(refused.body.resets_at).toMatch(/T00:00:00\.000Z$/);
  expect(await ledgerCalls(key)).toBe(calls); // no provider call

  const budget = (await t.call('GET', '/v1/budget', undefined, { key })).body;
  expect(budget.daily).toMatchObject({ spent_usd: 2 * SERP, reserved_usd: 0, simulated_usd: 2 * SERP });
  const usage = (await t.call('GET', '/v1/usage', undefined, { key })).body;
  expect(usage).toMatchObject({ cost_usd: 0, simulated_cost_usd: 2 * SERP }); // simulated money is never billed money
  expect(usage.by_tool[0]).toMatchObject({ provider: 'sandbox', simulated: true });

  expect((await t.call('PUT', '/v1/budget', { daily_usd: null }, { key })).body.daily.limit_usd).toBeNull();
  expect((await tool('serp_keyword_refresh', { keyword: 'hiking shoes' }, key)).status).toBe(200);
});

it('reserves a queued research job when it is accepted, settles it to the bill when it ends, and answers stored research at zero past the limit', async () => {
  const { key } = await t.newSite('Queued');
  const estimate = webResearchPrice('web', DEFAULT_BEDROCK_MODEL);
  await t.call('PUT', '/v1/budget', { daily_usd: estimate + 0.001 }, { key });
  let jobId = '';
  await whileQueued(t, async () => {
    const accepted = await tool('research', { mode: 'web', seed: 'trail running shoes', wait_ms: 0 }, key);
    expect(accepted.body.status).toBe('queued');
    jobId = accepted.body.job_id;
    expect((await t.call('GET', '/v1/budget', undefined, { key })).body.daily).toMatchObject({
      reserved_usd: estimate,
      spent_usd: 0,
    });
    // Another job does not fit while the first has its hold.
    expect((await tool('research', { mode: 'web', seed: 'road running shoes', wait_ms: 0 }, key)).status).toBe(402);
  });

  const done = await t.call('GET', `/v1/jobs/${jobId}?wait_ms=10000`, undefined, { key });
  expect(done.body.status).toBe('succeeded');
  const after = (await t.call('GET', '/v1/budget', undefined, { key })).body.daily;
  expect(after.reserved_usd).toBe(0);
  expect(after.spent_usd).toBeGreaterThan(0);
  expect(after.spent_usd).toBeLessThan(estimate);

  await t.call('PUT', '/v1/budget', { daily_usd: 0 }, { key });
  const cached = await tool('research', { mode: 'web', seed: 'trail running shoes' }, key);
  expect(cached.status).toBe(200);
  expect(cached.body).toMatchObject({ cached: true, cost_usd: 0 });
  expect(cached.body.budget).toBeUndefined();
});

it("keeps each site's budget to itself: one site's spent limit neither shows in nor stops another", async () => {
  const a = await t.newSite('Site A');
  const b = await t.newSite('Site B');
  await t.call('PUT', '/v1/budget', { daily_usd: SERP }, { key: a.key });
  expect((await tool('serp_keyword_refresh', { keyword: 'tents' }, a.key)).status).toBe(200);
  expect((await tool('serp_keyword_refresh', { keyword: 'stoves' }, a.key)).status).toBe(402);

  const other = (await t.call('GET', '/v1/budget', undefined, { key: b.key })).body;
  expect(other.daily).toMatchObject({ limit_usd: null, spent_usd: 0, reserved_usd: 0 });
  const paid = await tool('serp_keyword_refresh', { keyword: 'stoves' }, b.key);
  expect(paid.status).toBe(200);
  expect(paid.body.budget).toEqual({ remaining_usd: null, window: null });
  expect((await t.call('GET', '/v1/budget', undefined, { key: a.key })).body.daily.spent_usd).toBe(SERP);
});

it('lists analyze keywords the budget has no room for as failed with budget_exceeded, and answers the rest', async () => {
  const { key } = await t.newSite('Analyze');
  const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } }, key)).body.row.id;
  await tool('get_keywords', { topic_id: topic, seeds: ['running shoes', 'trail shoes'] }, key);
  await t.call(
    'PUT',
    '/v1/budget',
    { daily_usd: roundUsd((await t.call('GET', '/v1/budget', undefined, { key })).body.daily.spent_usd + 5 * SERP) },
    { key },
  );
  const reply = await tool('serp_landscape', { topic_id: topic, depth: 'analyze', wait_ms: 0 }, key);
  expect(reply.status).toBe(200);
  expect(reply.body.research.failed.map((f: { error: { code: string } }) => f.error.code)).toEqual([
    'budget_exceeded',
    'budget_exceeded',
  ]);
});

it('refuses a limit DynamoDB cannot store, or a negative one, with 400 and leaves the budget as it was', async () => {
  const { key } = await t.newSite('Odd limits');
  expect((await t.call('PUT', '/v1/budget', { daily_usd: 5 }, { key })).status).toBe(200);
  for (const daily_usd of [5e-324, 1e-131, -1]) {
    const refused = await t.call('PUT', '/v1/budget', { daily_usd }, { key });
    expect({ daily_usd, status: refused.status, code: refused.body.code }).toEqual({
      daily_usd,
      status: 400,
      code: 'validation_failed',
    });
  }
  // Zero is a limit like any other: nothing may be spent.
  expect((await t.call('PUT', '/v1/budget', { monthly_usd: 0 }, { key })).body.monthly.limit_usd).toBe(0);
  expect((await t.call('GET', '/v1/budget', undefined, { key })).body.daily.limit_usd).toBe(5);
});

it('says when the budget leaves a new competitor’s first monitoring runs unqueued, and queues them when there is room', async () => {
  const { key } = await t.newSite('Monitoring budget', { domain: 'budget-shop.example.com' });
  await t.call('PUT', '/v1/budget', { daily_usd: 0 }, { key });
  const stopped = await tool('add_competitor', { domain: 'rival-one.example.com' }, key);
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ created: true, monitoring_deferred: 2 }); // the competitor's run and the site's
  await t.call('PUT', '/v1/budget', { daily_usd: null }, { key });
  const queued = await tool('add_competitor', { domain: 'rival-two.example.com' }, key);
  expect(queued.body).toMatchObject({ created: true, monitoring_deferred: 0 });
  // Adding a tracked domain again starts no run, so none is deferred.
  await t.call('PUT', '/v1/budget', { daily_usd: 0 }, { key });
  expect((await tool('add_competitor', { domain: 'rival-two.example.com' }, key)).body).toMatchObject({
    created: false,
    monitoring_deferred: 0,
  });
});
