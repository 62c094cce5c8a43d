import { resetServices } from '@cm/runtime';
import { STORE_CLIENT_LIMITS } from '@cm/store';
import { startTestStack, type Reply, type TestStack } from '../helpers/local';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { apiClient } from '../helpers/client';

/*
 * DynamoDB stops answering: the handlers reach the embedded DynamoDB through a proxy the test cuts.
 * Every answer must come in the error shape as 503 service_unavailable with Retry-After, within a bound
 * far from the 29 s the function has (a bound on a hang, not a speed goal).
 */

let t: TestStack;
let proxy: TcpProxy;
const endpoint = process.env.DYNAMODB_ENDPOINT;
beforeAll(async () => {
  // The production timeouts: how soon an outage is answered is what this file checks.
  t = await startTestStack({ env: { DYNAMODB_REQUEST_TIMEOUT_MS: String(STORE_CLIENT_LIMITS.requestTimeoutMs) } });
  proxy = await startTcpProxy(t.stack.dynamo.endpoint);
  // The handlers' clients are made anew on the proxy's address; the test's own store goes direct.
  process.env.DYNAMODB_ENDPOINT = proxy.url;
  resetServices();
});
afterAll(async () => {
  await proxy.close();
  await t.stop();
  if (endpoint === undefined) delete process.env.DYNAMODB_ENDPOINT;
  else process.env.DYNAMODB_ENDPOINT = endpoint;
});

const HANG_BOUND_MS = 10_000;

/** The reply, and how long it took. */
async function timed<T>(call: () => Promise<Reply<T>>): Promise<Reply<T> & { ms: number }> {
  const started = Date.now();
  const reply = await call();
  return { ...reply, ms: Date.now() - started };
}

function expectUnavailable(reply: Reply<unknown> & { ms: number }) {
  expect(reply.status).toBe(503);
  expect(reply.body).toEqual({
    error: 'service_unavailable',
    code: 'service_unavailable',
    message: expect.stringContaining('try again'),
    retry_after_ms: 5000,
  });
  expect(reply.headers.get('retry-after')).toBe('5');
  expect(reply.ms).toBeLessThan(HANG_BOUND_MS);
}

describe.each([
  ['black-holed', () => Promise.resolve(proxy.blackHole())],
  ['refusing connections', () => proxy.refuse()],
])('DynamoDB %s', (_how, cut: () => Promise<void>) => {
  let fresh: string;
  beforeAll(async () => {
    // Through the proxy while it forwards: the demo key is cached by the handlers, this site's key is not.
    expect((await apiClient(t).route('GET /articles')).status).toBe(200);
    fresh = (await t.newSite('Uncached', { domain: 'uncached.example.com' })).key;
    await cut();
  });
  afterAll(() => proxy.restore());

  it('answers 503 service_unavailable with Retry-After: a data route, a first key lookup, a tool, a deep health check', async () => {
    const client = apiClient(t);
    const replies = await Promise.all([
      timed(() => client.routeError('GET /articles')),
      timed(() => client.routeError('POST /articles', { body: { slug: 'during-outage', title: 'T', body: [] } })),
      timed(() => client.routeError('GET /articles', { key: fresh })),
      timed(() => client.toolError('db_select', { table: 'cm_topics' })),
      timed(() => client.routeError('GET /health', { query: { deep: 1 }, key: null })),
    ]);
    for (const reply of replies) expectUnavailable(reply);
  });

  it('keeps GET /health cheap: it answers without the table', async () => {
    const health = await apiClient(t).route('GET /health', { key: null });
    expect([health.status, health.body]).toEqual([200, { ok: true }]);
  });
});

describe('after the outage', () => {
  it('answers as before once DynamoDB is back, and deep health says so', async () => {
    const client = apiClient(t);
    expect((await client.route('GET /articles')).status).toBe(200);
    const deep = await client.route('GET /health', { query: { deep: 1 }, key: null });
    expect([deep.status, deep.body]).toEqual([200, { ok: true }]);
    expect((await client.routeError('GET /health', { query: { deep: 'yes' }, key: null })).status).toBe(400);
  });
});
