import { roundUsd } from '@cm/contract';
import { dataForSeoPrice, ENDPOINTS, webResearchPrice } from '@cm/providers';
import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';
import { startTestStack, type TestStack } from '../helpers/local';
import { whileQueued } from '../helpers/research';
import { apiClient, given } from '../helpers/client';

/* Budgets over HTTP, with the sandbox charging list prices (SANDBOX_LIST_PRICES=1). */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '1500' } });
}, 60_000);
afterAll(() => t.stop());

const SERP = dataForSeoPrice(ENDPOINTS.serpOrganic, 20);
const DAILY = roundUsd(2 * SERP + 0.001);
const ledgerCalls = async (key?: string) => (await apiClient(t, key).route('GET /v1/usage')).body.calls;

it('answers an unset budget as no limits, takes limits by PUT, and refuses a call that would pass the daily limit with 402 before any provider call', async () => {
  const { key } = await t.newSite('Daily');
  const site = apiClient(t, key);
  expect((await site.route('GET /v1/budget')).body.daily).toMatchObject({
    limit_usd: null,
    spent_usd: 0,
    reserved_usd: 0,
  });
  const put = await site.route('PUT /v1/budget', { body: { daily_usd: DAILY, monthly_usd: 100 } });
  expect(put.status).toBe(200);
  expect(put.body.monthly.limit_usd).toBe(100);

  const first = await site.tool('serp_keyword_refresh', { keyword: 'trail shoes' });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({
    cost_usd: SERP,
    simulated: true,
    budget: { window: 'day', remaining_usd: roundUsd(DAILY - SERP) },
  });
  expect((await site.tool('serp_keyword_refresh', { keyword: 'road shoes' })).status).toBe(200);
  const calls = await ledgerCalls(key);

  const refused = await site.toolError('serp_keyword_refresh', { keyword: 'hiking shoes' });
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

  const budget = (await site.route('GET /v1/budget')).body;
  expect(budget.daily).toMatchObject({ spent_usd: 2 * SERP, reserved_usd: 0, simulated_usd: 2 * SERP });
  const usage = (await site.route('GET /v1/usage')).body;
  expect(usage).toMatchObject({ cost_usd: 0, simulated_cost_usd: 2 * SERP }); // simulated money is never billed money
  expect(usage.by_tool[0]).toMatchObject({ provider: 'sandbox', simulated: true });

  expect((await site.route('PUT /v1/budget', { body: { daily_usd: null } })).body.daily.limit_usd).toBeNull();
  expect((await site.tool('serp_keyword_refresh', { keyword: 'hiking shoes' })).status).toBe(200);
});

it('reserves a queued research job when it is accepted, settles it to the bill when it ends, and answers stored research at zero past the limit', async () => {
  const site = apiClient(t, (await t.newSite('Queued')).key);
  const estimate = webResearchPrice('web', DEFAULT_BEDROCK_MODEL);
  await site.route('PUT /v1/budget', { body: { daily_usd: estimate + 0.001 } });
  let jobId = '';
  await whileQueued(t, async () => {
    const accepted = (await site.tool('research', { mode: 'web', seed: 'trail running shoes', wait_ms: 0 })).body;
    expect(accepted).toMatchObject({ status: 'queued' });
    jobId = given('job_id' in accepted ? accepted.job_id : null, 'the job id');
    expect((await site.route('GET /v1/budget')).body.daily).toMatchObject({
      reserved_usd: estimate,
      spent_usd: 0,
    });
    // Another job does not fit while the first has its hold.
    expect((await site.toolError('research', { mode: 'web', seed: 'road running shoes', wait_ms: 0 })).status).toBe(
      402,
    );
  });

  const done = await site.route('GET /v1/jobs/{job_id}', { params: { job_id: jobId }, query: { wait_ms: 10000 } });
  expect(done.body.status).toBe('succeeded');
  const after = (await site.route('GET /v1/budget')).body.daily;
  expect(after.reserved_usd).toBe(0);
  expect(after.spent_usd).toBeGreaterThan(0);
  expect(after.spent_usd).toBeLessThan(estimate);

  await site.route('PUT /v1/budget', { body: { daily_usd: 0 } });
  const cached = await site.tool('research', { mode: 'web', seed: 'trail running shoes' });
  expect(cached.status).toBe(200);
  expect(cached.body).toMatchObject({ cached: true, cost_usd: 0 });
  expect(cached.body.budget).toBeUndefined();
});

it("keeps each site's budget to itself: one site's spent limit neither shows in nor stops another", async () => {
  const a = apiClient(t, (await t.newSite('Site A')).key);
  const b = apiClient(t, (await t.newSite('Site B')).key);
  await a.route('PUT /v1/budget', { body: { daily_usd: SERP } });
  expect((await a.tool('serp_keyword_refresh', { keyword: 'tents' })).status).toBe(200);
  expect((await a.toolError('serp_keyword_refresh', { keyword: 'stoves' })).status).toBe(402);

  const other = (await b.route('GET /v1/budget')).body;
  expect(other.daily).toMatchObject({ limit_usd: null, spent_usd: 0, reserved_usd: 0 });
  const paid = await b.tool('serp_keyword_refresh', { keyword: 'stoves' });
  expect(paid.status).toBe(200);
  expect(paid.body.budget).toEqual({ remaining_usd: null, window: null });
  expect((await a.route('GET /v1/budget')).body.daily.spent_usd).toBe(SERP);
});

it('lists analyze keywords the budget has no room for as failed with budget_exceeded, and answers the rest', async () => {
  const site = apiClient(t, (await t.newSite('Analyze')).key);
  const topic = (await site.tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } })).body.row.id;
  await site.tool('get_keywords', { topic_id: topic, seeds: ['running shoes', 'trail shoes'] });
  const spent = (await site.route('GET /v1/budget')).body.daily.spent_usd;
  await site.route('PUT /v1/budget', { body: { daily_usd: roundUsd(spent + 5 * SERP) } });
  const reply = await site.tool('serp_landscape', { topic_id: topic, depth: 'analyze', wait_ms: 0 });
  expect(reply.status).toBe(200);
  expect(given(reply.body.research, 'the research').failed.map((f) => f.error.code)).toEqual([
    'budget_exceeded',
    'budget_exceeded',
  ]);
});

it('refuses a limit DynamoDB cannot store, or a negative one, with 400 and leaves the budget as it was', async () => {
  const site = apiClient(t, (await t.newSite('Odd limits')).key);
  expect((await site.route('PUT /v1/budget', { body: { daily_usd: 5 } })).status).toBe(200);
  for (const daily_usd of [5e-324, 1e-131, -1]) {
    const refused = await site.routeError('PUT /v1/budget', { body: { daily_usd } });
    expect({ daily_usd, status: refused.status, code: refused.body.code }).toEqual({
      daily_usd,
      status: 400,
      code: 'validation_failed',
    });
  }
  // Zero is a limit like any other: nothing may be spent.
  expect((await site.route('PUT /v1/budget', { body: { monthly_usd: 0 } })).body.monthly.limit_usd).toBe(0);
  expect((await site.route('GET /v1/budget')).body.daily.limit_usd).toBe(5);
});

it('says when the budget leaves a new competitor’s first monitoring runs unqueued, and queues them when there is room', async () => {
  const site = apiClient(t, (await t.newSite('Monitoring budget', { domain: 'budget-shop.example.com' })).key);
  await site.route('PUT /v1/budget', { body: { daily_usd: 0 } });
  const stopped = await site.tool('add_competitor', { domain: 'rival-one.example.com' });
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ created: true, monitoring_deferred: 2 }); // the competitor's run and the site's
  await site.route('PUT /v1/budget', { body: { daily_usd: null } });
  const queued = await site.tool('add_competitor', { domain: 'rival-two.example.com' });
  expect(queued.body).toMatchObject({ created: true, monitoring_deferred: 0 });
  // Adding a tracked domain again starts no run, so none is deferred.
  await site.route('PUT /v1/budget', { body: { daily_usd: 0 } });
  expect((await site.tool('add_competitor', { domain: 'rival-two.example.com' })).body).toMatchObject({
    created: false,
    monitoring_deferred: 0,
  });
});
