import { LIMITS } from '@cm/contract';
import { dataForSeoPrice, ENDPOINTS } from '@cm/providers';
import { lambdaContext } from '@cm/local';
import { handler as serpKeywordRefresh } from '../../functions/serp-keyword-refresh/handler';
import { forgetBreakers } from '@cm/tools';
import { startTestStack, withStackEnv, type TestStack } from '../helpers/local';
import { apiEvent } from '../helpers/lambda-events';
import { dataforseoEnv, type Replay, startReplay } from '../helpers/replay';

/*
 * A provider that stops answering: DataForSEO's replay reads requests and never answers. The route
 * answers within its deadline, the shared breaker then refuses calls at once, and a run given up at its
 * deadline leaves nothing reserved (a call it cut after it was sent is counted at its estimate).
 */

let t: TestStack;
let replay: Replay;

beforeAll(async () => {
  replay = await startReplay();
  t = await startTestStack({ env: dataforseoEnv(replay) });
}, 60_000);
afterAll(async () => {
  await t.stop();
  await replay.close();
});
beforeEach(() => {
  forgetBreakers();
  replay.requests.length = 0;
});

const refresh = (key?: string) =>
  t.call('POST', '/v1/tools/serp_keyword_refresh', { keyword: 'running shoes' }, key ? { key } : {});
const dailyBudget = async (key: string) => (await t.call('GET', '/v1/budget', undefined, { key })).body.daily;
const ledgerCalls = async (key: string) =>
  (await t.call('GET', '/v1/usage', undefined, { key })).body.by_tool.reduce(
    (sum: number, row: { calls: number }) => sum + row.calls,
    0,
  );

it('settles the holds a run placed when its deadline gives it up, before the 503, not after they expire in 5 minutes', async () => {
  const site = await t.newSite('Abandoned');
  replay.hang(ENDPOINTS.serpOrganic);
  try {
    // A function with 4 s left: the handler is told to stop at 2.5 s, while the provider still hangs (20 s an attempt).
    await withStackEnv(t, { DATAFORSEO_TIMEOUT_MS: '20000' }, async () => {
      const event = apiEvent('POST', '/v1/tools/serp_keyword_refresh', {
        body: { keyword: 'running shoes' },
        headers: { 'x-api-key': site.key },
      });
      const reply = await serpKeywordRefresh(event, lambdaContext('serp-keyword-refresh', 4_000));
      expect(reply.statusCode).toBe(503);
      expect(JSON.parse(reply.body ?? '{}')).toMatchObject({ code: 'service_unavailable' });
    });
    expect(replay.requests).toHaveLength(1);
    // Read at once after the answer: the hold is gone. The request reached the provider, which may bill
    // it, so it is spent at its estimate, and pending at it in the ledger.
    const estimate = dataForSeoPrice(ENDPOINTS.serpOrganic, LIMITS.serpDepth);
    expect(await dailyBudget(site.key)).toMatchObject({ reserved_usd: 0, spent_usd: estimate });
    expect((await t.call('GET', '/v1/usage', undefined, { key: site.key })).body.by_tool).toEqual([
      expect.objectContaining({ provider: 'dataforseo', calls: 1, cost_usd: estimate, pending_calls: 1 }),
    ]);
  } finally {
    replay.hang(ENDPOINTS.serpOrganic, false);
  }
}, 30_000);

it('answers 503 provider_unavailable within the deadline for a hanging provider, then refuses at once while its breaker is open', async () => {
  const site = await t.newSite('Outage');
  replay.hang(ENDPOINTS.serpOrganic);
  try {
    await withStackEnv(t, { DATAFORSEO_TIMEOUT_MS: '300' }, async () => {
      // Each attempt is cut at 300 ms and the call's attempts stop within its time (not 4 × 25 s): the
      // failures open the breaker, five of them within a minute.
      const first = await refresh(site.key);
      expect(first.status).toBe(503);
      expect(first.body).toMatchObject({ code: 'provider_unavailable', provider: 'dataforseo' });
      expect(first.headers.get('retry-after')).toMatch(/^\d+$/);
      const second = await refresh(site.key);
      expect(second.status).toBe(503);
      expect(second.body.code).toBe('provider_unavailable');
      const reached = replay.requests.length;
      expect(reached).toBeGreaterThanOrEqual(5);

      // Open: refused at once, with the cool-down left as Retry-After, never reaching the provider,
      // reserving nothing and adding nothing to the ledger; another site is refused too (the breaker is shared).
      const [budgetBefore, ledgerBefore] = [await dailyBudget(site.key), await ledgerCalls(site.key)];
      const other = await t.newSite('Other outage');
      for (const key of [site.key, other.key]) {
        const refused = await refresh(key);
        expect(refused.status).toBe(503);
        expect(refused.body).toMatchObject({ code: 'provider_unavailable', provider: 'dataforseo' });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(replay.requests).toHaveLength(reached);
      expect(await dailyBudget(site.key)).toEqual(budgetBefore);
      expect(await dailyBudget(other.key)).toMatchObject({ reserved_usd: 0, spent_usd: 0 });
      expect(await ledgerCalls(site.key)).toBe(ledgerBefore);
      expect(await ledgerCalls(other.key)).toBe(0);
    });
  } finally {
    replay.hang(ENDPOINTS.serpOrganic, false);
  }
}, 60_000);
