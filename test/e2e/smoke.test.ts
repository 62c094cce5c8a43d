import { runSmoke } from '@cm/local';
import { startTestStack, type TestStack } from '../helpers/local';

/* npm run smoke: the three checks after a deploy, run here against the local stack with the sandbox. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '300' } });
});
afterAll(() => t.stop());

async function smoke(...argv: string[]) {
  const out = { log: [] as string[], error: [] as string[] };
  const code = await runSmoke(argv, { log: (line) => out.log.push(line), error: (line) => out.error.push(line) });
  return { code, ...out };
}

it('passes a deep health check, a free tool call and a research job that ends, saying so step by step', async () => {
  const reply = await smoke('--url', t.url, '--key', t.key);
  expect(reply.error).toEqual([]);
  expect(reply.code).toBe(0);
  expect(reply.log).toEqual([
    expect.stringMatching(/^ok {3}health \(deep\): the API answers and reaches its table \(\d+ ms\)$/),
    expect.stringMatching(/^ok {3}recall \(free tool call\): the key is valid and the tools run \(\d+ ms\)$/),
    expect.stringMatching(/^ok {3}research \(web job\): job job_\S+ succeeded \(\d+ ms\)$/),
  ]);
  // The job it ran is the site's, on its ledger.
  const usage = await t.call('GET', '/v1/usage');
  expect(usage.body.by_tool.map((row: { tool: string }) => row.tool)).toContain('research');
});

it('stops at the first step that fails, saying why: a wrong key, an address that answers nothing', async () => {
  const wrongKey = await smoke('--url', t.url, '--key', 'cmk_not-a-key-of-this-deployment');
  expect(wrongKey.code).toBe(1);
  expect(wrongKey.log).toEqual([expect.stringMatching(/^ok {3}health/)]);
  expect(wrongKey.error).toEqual([expect.stringMatching(/^FAIL recall \(free tool call\): recall: HTTP 401 /)]);

  const nowhere = await smoke('--url', 'http://127.0.0.1:9', '--key', t.key);
  expect(nowhere.code).toBe(1);
  expect(nowhere.error).toEqual([expect.stringMatching(/^FAIL health \(deep\): cannot reach http:\/\/127\.0\.0\.1:9/)]);
});

it('refuses options it cannot use with exit code 2 and the usage', async () => {
  const reply = await smoke('--url', 'ftp://example.com', '--key', 'nope');
  expect(reply.code).toBe(2);
  expect(reply.error.slice(0, 2)).toEqual([
    expect.stringMatching(/^--url: /),
    '--key: must be a site’s API key (cmk_…)',
  ]);
  expect(reply.error.at(-1)).toContain('Usage: npm run smoke');
});
