import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { roundUsd } from '@cm/contract';
import { dataForSeoPrice, ENDPOINTS } from '@cm/providers';
import { startTestStack, type TestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { startTlsSite, type TlsSite } from '../helpers/tls-site';

/*
 * A site's budget warnings, sent to the webhook it sets (PUT /v1/budget), over HTTPS to a stand-in on
 * loopback (SITE_WEBHOOK_LOOPBACK_DEV_ONLY, with the fixture CA), the sandbox charging list prices.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let t: TestStack;
let receiver: TlsSite;
let received: Received[] = [];
/** The statuses the receiver answers, in order (then 200). */
let answers: number[] = [];

beforeAll(async () => {
  receiver = await startTlsSite('127.0.0.1', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: z.record(z.string(), z.unknown()).parse(JSON.parse(Buffer.concat(chunks).toString('utf8'))),
      });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  t = await startTestStack({
    env: {
      SANDBOX_LIST_PRICES: '1',
      SITE_WEBHOOK_LOOPBACK_DEV_ONLY: '1',
      SITE_WEBHOOK_CA_FILE: join(__dirname, '../fixtures/tls/cert.pem'),
    },
  });
}, 60_000);
beforeEach(() => {
  received = [];
  answers = [];
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

const SERP = dataForSeoPrice(ENDPOINTS.serpOrganic, 20);
const hook = (path: string) => `https://127.0.0.1:${receiver.port}${path}`;
/** A paid call the site's budget may refuse: its status. */
const refresh = async (keyword: string, key: string) =>
  (await apiClient(t, key).toolOutcome('serp_keyword_refresh', { keyword })).status;
/** Calls in turn, then waits for every queue (the warnings') to be done. */
async function spend(key: string, keywords: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const keyword of keywords) statuses.push(await refresh(keyword, key));
  await t.stack.drain();
  return statuses;
}

it("POSTs a window's warning to the site's webhook once at 80% and once at 100%, and nothing below or after", async () => {
  const { key, siteId } = await t.newSite('Warned');
  const daily = roundUsd(5 * SERP);
  const put = await apiClient(t, key).route('PUT /v1/budget', {
    body: { daily_usd: daily, warning_webhook_url: hook('/budget') },
  });
  expect(put.status).toBe(200);
  expect(put.body.warning_webhook_url).toBe(hook('/budget'));

  expect(await spend(key, ['one', 'two', 'three'])).toEqual([200, 200, 200]);
  expect(received).toEqual([]); // 60%
  expect(await spend(key, ['four'])).toEqual([200]); // 80%
  expect(received).toHaveLength(1);
  const day = new Date().toISOString().slice(0, 10);
  expect(given(received[0], 'the warning received').path).toBe('/budget');
  expect(given(received[0], 'the warning received').headers['content-type']).toBe('application/json');
  expect(given(received[0], 'the warning received').body).toEqual({
    type: 'budget.warning',
    id: `${siteId}:day:${day}:080`,
    site_id: siteId,
    window: 'day',
    period: day,
    level_pct: 80,
    used_pct: 80,
    limit_usd: daily,
    // Warned as the fourth call's hold is taken, before its provider is called.
    spent_usd: roundUsd(3 * SERP),
    reserved_usd: SERP,
    at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  expect(given(received[0], 'the warning received').headers['idempotency-key']).toBe(
    given(received[0], 'the warning received').body.id,
  );

  // The fifth call uses the rest (100%), the sixth is refused: one more warning, not two.
  expect(await spend(key, ['five', 'six'])).toEqual([200, 402]);
  expect(received.map((r) => [r.body.level_pct, r.body.id])).toEqual([
    [80, `${siteId}:day:${day}:080`],
    [100, `${siteId}:day:${day}:100`],
  ]);
  expect(await spend(key, ['seven'])).toEqual([402]);
  expect(received).toHaveLength(2);
});

it('warns once of a level that concurrent calls cross together', async () => {
  const { key } = await t.newSite('Racing');
  await apiClient(t, key).route('PUT /v1/budget', {
    body: { daily_usd: roundUsd(10 * SERP), warning_webhook_url: hook('/race') },
  });
  const statuses = await Promise.all(Array.from({ length: 9 }, (_v, i) => refresh(`concurrent ${i}`, key)));
  expect(statuses).toEqual(Array.from({ length: 9 }, () => 200));
  await t.stack.drain();
  expect(received.map((r) => r.body.level_pct)).toEqual([80]);
});

it("warns of the month's window apart from the day's", async () => {
  const { key, siteId } = await t.newSite('Monthly');
  await apiClient(t, key).route('PUT /v1/budget', {
    body: { monthly_usd: roundUsd(2 * SERP), warning_webhook_url: hook('/m') },
  });
  expect(await spend(key, ['month one', 'month two'])).toEqual([200, 200]);
  const month = new Date().toISOString().slice(0, 7);
  expect(received.map((r) => [r.body.window, r.body.period, r.body.id])).toEqual([
    ['month', month, `${siteId}:month:${month}:100`],
  ]);
});

it('delivers again after a failure the receiver may recover from (same id), and drops what it refuses', async () => {
  const { key, siteId } = await t.newSite('Retried');
  await apiClient(t, key).route('PUT /v1/budget', {
    body: { daily_usd: roundUsd(SERP), warning_webhook_url: hook('/retry') },
  });
  answers = [503];
  expect(await spend(key, ['only'])).toEqual([200]);
  const ids = received.map((r) => r.body.id);
  expect(ids).toEqual([`${siteId}:day:${new Date().toISOString().slice(0, 10)}:100`, ids[0]]);

  const other = await t.newSite('Rejecting');
  await apiClient(t, other.key).route('PUT /v1/budget', {
    body: { daily_usd: roundUsd(SERP), warning_webhook_url: hook('/gone') },
  });
  received = [];
  answers = [410];
  expect(await spend(other.key, ['only'])).toEqual([200]);
  expect(received).toHaveLength(1); // a 410 is not asked again
});

it('sends nothing for a site without a webhook, and none to an address that is not public', async () => {
  const quiet = await t.newSite('Quiet');
  await apiClient(t, quiet.key).route('PUT /v1/budget', { body: { daily_usd: roundUsd(SERP) } });
  expect(await spend(quiet.key, ['quiet'])).toEqual([200]);

  const inside = await t.newSite('Inside');
  await apiClient(t, inside.key).route('PUT /v1/budget', {
    body: { daily_usd: roundUsd(SERP), warning_webhook_url: 'https://10.1.2.3/hook' },
  });
  receiver.connections = 0;
  expect(await spend(inside.key, ['inside'])).toEqual([200]);
  expect(received).toEqual([]);
  expect(receiver.connections).toBe(0);
});

it('takes only an https URL without credentials, and null to stop', async () => {
  const site = apiClient(t, (await t.newSite('Checked')).key);
  for (const url of ['http://example.com/hook', 'https://user:pw@example.com/hook', 'not a url', 'x'.repeat(3000)]) {
    const put = await site.routeError('PUT /v1/budget', { body: { warning_webhook_url: url } });
    expect({ url, status: put.status, code: put.body.code }).toEqual({ url, status: 400, code: 'validation_failed' });
  }
  expect((await site.route('PUT /v1/budget', { body: { warning_webhook_url: hook('/x') } })).status).toBe(200);
  const stopped = await site.route('PUT /v1/budget', { body: { warning_webhook_url: null } });
  expect(stopped.body.warning_webhook_url).toBeNull();
  expect((await site.route('GET /v1/budget')).body.warning_webhook_url).toBeNull();
});
