import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ORIGIN_VERIFY_HEADER } from '@cm/contract';
import { startTestStack, type TestStack } from '../helpers/local';

/*
 * A deployment behind CloudFront and WAF (ORIGIN_VERIFY set): what did not come through the distribution,
 * which adds the origin secret, is refused before any work; what did is served, and the tools MCP runs by
 * invoking their functions are served too.
 */

const SECRET = 'origin-secret-of-this-test';
const THROUGH_EDGE = { [ORIGIN_VERIFY_HEADER]: SECRET };
let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { ORIGIN_VERIFY: SECRET } });
}, 60_000);
afterAll(() => t.stop());

it('refuses 403 edge_required what reached the API without the origin secret, a wrong secret too, and serves what came through', async () => {
  const refused: Record<string, string>[] = [
    {},
    { [ORIGIN_VERIFY_HEADER]: `${SECRET}x` },
    { [ORIGIN_VERIFY_HEADER]: '' },
  ];
  for (const headers of refused) {
    const health = await t.call('GET', '/health', undefined, { key: null, headers });
    expect(health.status).toBe(403);
    expect(health.body).toMatchObject({ code: 'edge_required' });
    const paid = await t.call('POST', '/v1/tools/get_keywords', { seeds: ['trail shoes'] }, { headers });
    expect(paid.status).toBe(403);
  }
  expect((await t.call('GET', '/health', undefined, { key: null, headers: THROUGH_EDGE })).status).toBe(200);
  const paid = await t.call('POST', '/v1/tools/get_keywords', { seeds: ['trail shoes'] }, { headers: THROUGH_EDGE });
  expect(paid.status).toBe(200);
  // The refused calls reached no tool: the ledger has the one call served.
  const usage = await t.call('GET', '/v1/usage', undefined, { headers: THROUGH_EDGE });
  expect(usage.body.by_tool).toEqual([expect.objectContaining({ tool: 'get_keywords', calls: 1 })]);
});

it('serves an MCP tool call that came through, the tool function it invokes included, and refuses one that did not', async () => {
  const refused = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': t.key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ code: 'edge_required' });

  const client = new Client({ name: 'edge-only', version: '1.0.0' });
  const headers = { 'x-api-key': t.key, ...THROUGH_EDGE };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  try {
    const result = await client.callTool({ name: 'get_keywords', arguments: { seeds: ['canoe paddles'] } });
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.structuredContent)).toContain('canoe paddles');
  } finally {
    await client.close();
  }
});
