import * as dns from 'node:dns';
import { MCP_PATH } from '@cm/contract';
import { siteClient, startTestStack, type TestStack } from '../helpers/local';
import { matrixFigure, nameOf, REFUSED_ADDRESSES, REFUSED_URLS, SSRF_DNS } from '../helpers/ssrf-matrix';

/*
 * The SSRF matrix (test/helpers/ssrf-matrix.ts) end to end: every URL of it sent as url research over
 * HTTP to the local stack, on REST and on MCP, is refused, before a place is taken or a job queued.
 * (Redirects are refused by the fetch, which the sandbox does not make: test/integration/ssrf.test.ts.)
 */

const TARGETS = [
  ...REFUSED_URLS.map((entry) => entry.url),
  ...REFUSED_ADDRESSES.map((_entry, i) => `https://${nameOf(i)}/page`),
];

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  // The test DNS: each name of the matrix resolves to its refused address; no other name resolves.
  jest
    .spyOn(dns.promises, 'lookup')
    .mockImplementation((async (host: string) =>
      (SSRF_DNS[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as never);
}, 60_000);
afterAll(async () => {
  jest.restoreAllMocks();
  await t.stop();
});

it('refuses every URL of the SSRF matrix as url research over HTTP, on REST and MCP, before taking a place or queueing a job', async () => {
  const s = await siteClient(t, 'SSRF site', { domain: 'ssrf.example.com' });
  const queued = t.stack.queues.research.sent;
  const accepted: string[] = [];
  for (const url of TARGETS) {
    const rest = await s.tool('research', { mode: 'url', seed: url, question: 'What is on it?', wait_ms: 0 });
    if (
      rest.status !== 400 ||
      rest.body.code !== 'validation_failed' ||
      !/public addresses only/.test(rest.body.issues?.[0]?.message)
    )
      accepted.push(`REST ${url} → ${rest.status}`);
    const args = { mode: 'url', seed: url, wait_ms: 0 };
    const mcp = await s.call(
      'POST',
      MCP_PATH,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'research', arguments: args } },
      { accept: 'application/json, text/event-stream' },
    );
    if (mcp.body.result?.isError !== true || !/public addresses only/.test(mcp.body.result.content[0].text))
      accepted.push(`MCP ${url} → ${mcp.text.slice(0, 200)}`);
  }
  const refused = 2 * TARGETS.length - accepted.length;
  console.log(
    `reliability: ${matrixFigure(refused, 2 * TARGETS.length, 'url research calls over HTTP (REST and MCP)')}`,
  );
  expect(accepted).toEqual([]);
  expect(t.stack.queues.research.sent).toBe(queued);
  expect(await t.store.researchSlots.state()).toEqual({ inflight: 0, leases: {}, groups: {} });
});
