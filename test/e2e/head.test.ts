import { article, useTestStack } from '../helpers/local';
import { given } from '../helpers/client';

/* HEAD wherever GET answers (docs/api.md#conventions): the same status and headers, and no body. */

const t = useTestStack();

/** Headers that differ between any two replies: the clock, the body's length (HEAD has none), the connection. */
const PER_REPLY = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

async function request(method: 'GET' | 'HEAD', path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}${path}`, { method, headers });
  const body = await res.arrayBuffer();
  const kept = Object.fromEntries([...res.headers].filter(([name]) => !PER_REPLY.has(name)));
  return { status: res.status, headers: kept, bytes: body.byteLength };
}

it('answers HEAD as GET, with no body, on visitor pages, reads, discovery and the dashboard (audit: every HEAD was 404)', async () => {
  const { id } = (await t.call('POST', '/articles', article('head-page'))).body;
  const dashboard = await (await fetch(`${t.url}/dashboard`)).text();
  const asset = given(given(/src="\/dashboard\/assets\/([^"]+)"/.exec(dashboard), 'the match')[1], 'the asset path');
  const key = { 'x-api-key': t.key };
  const cases: [string, Record<string, string>][] = [
    [`/sites/${t.siteId}/articles/head-page`, {}],
    [`/sites/${t.siteId}/articles/no-such-page`, {}],
    ['/health', {}],
    ['/health?deep=1', {}],
    ['/openapi.json', {}],
    ['/dashboard', {}],
    [`/dashboard/assets/${asset}`, {}],
    [`/articles/${id}`, key],
    ['/articles?limit=5', key],
    ['/v1/usage', key],
    ['/v1/tools', key],
    [`/articles/${id}`, {}],
    ['/no-such-route', {}],
  ];
  for (const [path, headers] of cases) {
    const get = await request('GET', path, headers);
    const head = await request('HEAD', path, headers);
    expect([path, head.status, head.headers]).toEqual([path, get.status, get.headers]);
    expect([path, head.bytes]).toEqual([path, 0]);
    expect(get.bytes).toBeGreaterThan(0);
  }
});

it('answers a conditional HEAD of a visitor page 304, as GET does', async () => {
  await t.call('POST', '/articles', article('head-cached'));
  const first = await fetch(`${t.url}/sites/${t.siteId}/articles/head-cached`, { method: 'HEAD' });
  const etag = given(first.headers.get('etag'), 'the entry');
  const again = await fetch(`${t.url}/sites/${t.siteId}/articles/head-cached`, {
    method: 'HEAD',
    headers: { 'if-none-match': etag },
  });
  expect(again.status).toBe(304);
});

it('does not answer HEAD on the MCP stream or on POST-only routes', async () => {
  for (const path of ['/mcp', '/api/content/notify'])
    expect((await fetch(`${t.url}${path}`, { method: 'HEAD' })).status).toBe(404);
});
