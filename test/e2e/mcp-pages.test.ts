import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '@cm/contract';
import { resetServices } from '@cm/runtime';
import { startTestStack, withStackEnv, type TestStack } from '../helpers/local';
import { whilePaused } from '../helpers/research';
import { apiClient, given } from '../helpers/client';

/* Over MCP, through the SDK's own client: large results in pages with a resource of the whole, and long work it can follow. */

let t: TestStack;
const clients: Client[] = [];
const MAX = 20_000;

beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '300', MCP_RESULT_MAX_BYTES: String(MAX) } });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
  resetServices();
});

/** Runs `run` with sandbox research taking 2.6 s: long enough to see it wait (and report progress at 0 and 2 s). */
const withSlowResearch = (run: () => Promise<void>) => withStackEnv(t, { SANDBOX_RESEARCH_MS: '2600' }, run);

async function connect(key = t.key): Promise<Client> {
  const client = new Client({ name: 'mcp-pages', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }),
  );
  clients.push(client);
  return client;
}

interface LinksPage {
  links: unknown[];
  next_cursor: string | null;
  page: { field: string; offset: number; returned: number; total: number; result_uri: string };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const linksPage = (result: CallToolResult) => result.structuredContent as unknown as LinksPage;
const paidCalls = async () => (await apiClient(t).route('GET /v1/usage')).body.calls;

describe('MCP results over the size limit', () => {
  const input = { scope: 'example.org', depth: 'links', limit: 1000 };

  it('pages serp_backlinks depth links (limit 1000) instead of cutting it: every link, in order, and the pages cost nothing', async () => {
    const rest = await t.call('POST', '/v1/tools/serp_backlinks', input);
    const all = rest.body.links as unknown[];
    expect(Buffer.byteLength(rest.text)).toBeGreaterThan(3 * MAX);

    const client = await connect();
    const callsBefore = await paidCalls();
    const first = await call(client, 'serp_backlinks', input);
    const shown = linksPage(first);
    expect(first.isError).toBeFalsy();
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(MAX);
    expect(shown.page).toMatchObject({ field: 'links', offset: 0, total: all.length, returned: shown.links.length });
    expect(shown.next_cursor).toEqual(expect.any(String));
    expect(first._meta).toMatchObject({ paged: true, max_bytes: MAX });
    // The whole result is offered as a resource too.
    expect(first.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: shown.page.result_uri, mimeType: 'application/json' }),
    );

    const callsAfterFirst = await paidCalls();
    // The call itself is a live lookup in the ledger; its pages are not.
    expect(callsAfterFirst).toBeGreaterThan(callsBefore);
    const links = [...shown.links];
    let cursor = shown.next_cursor;
    let pages = 1;
    while (cursor) {
      const next = linksPage(await call(client, 'serp_backlinks', { cursor }));
      expect(Buffer.byteLength(JSON.stringify(next))).toBeLessThanOrEqual(MAX);
      expect(next.page.offset).toBe(links.length);
      links.push(...next.links);
      cursor = next.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(3);
    // The sandbox answers the same lookup the same way: the pages are REST's links, none dropped.
    expect(links).toEqual(all);
    // A page is read from the kept result: no provider call, no ledger line.
    expect(await paidCalls()).toBe(callsAfterFirst);
  });

  it("reads the kept result as a resource in pieces that make the call's JSON, for its own site only", async () => {
    const client = await connect();
    const first = await call(client, 'serp_backlinks', input);
    const { page } = linksPage(first);
    let uri: string | null = page.result_uri;
    let text = '';
    let pieces = 0;
    while (uri) {
      const read = await client.readResource({ uri });
      const [content] = read.contents;
      expect(Buffer.byteLength((content as { text: string }).text)).toBeLessThanOrEqual(MAX);
      text += (content as { text: string }).text;
      uri = (given(content, 'the content')._meta as { next: string | null }).next;
      pieces++;
    }
    expect(pieces).toBeGreaterThan(3);
    const whole = JSON.parse(text) as { links: unknown[] };
    expect(whole.links).toHaveLength(page.total);
    expect(whole.links.slice(0, linksPage(first).links.length)).toEqual(linksPage(first).links);

    // Another site's key finds neither the resource nor the cursor's pages.
    const other = await connect((await t.newSite()).key);
    await expect(other.readResource({ uri: page.result_uri })).rejects.toThrow(/Resource not found/);
    const refused = await call(other, 'serp_backlinks', { cursor: linksPage(first).next_cursor });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toMatchObject({
      code: 'validation_failed',
      issues: [{ path: 'cursor' }],
    });
  });

  it('refuses a cursor it never gave, or one of another tool, in the one error shape', async () => {
    const client = await connect();
    const first = await call(client, 'serp_backlinks', input);
    const pastEnd = `${given(linksPage(first).next_cursor, 'the next_cursor').split('.')[0]}.99999`;
    for (const [name, cursor] of [
      ['serp_backlinks', 'not-a-cursor'],
      ['get_keywords', linksPage(first).next_cursor],
      ['serp_backlinks', pastEnd],
    ] as const) {
      const refused = await call(client, name, { cursor });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content[0] as { text: string }).text)).toMatchObject({ code: 'validation_failed' });
    }
    await expect(client.readResource({ uri: 'cm://results/nothing-here' })).rejects.toThrow(/Resource not found/);
  });
});

describe('MCP _meta of an estimate', () => {
  it('says estimate and costs nothing, and does not call it cached', async () => {
    const client = await connect();
    const result = await call(client, 'serp_keyword_refresh', { keyword: 'trail shoes', estimate: true });
    expect(result.structuredContent).toMatchObject({ estimate: true, tool: 'serp_keyword_refresh' });
    expect(result._meta).toEqual({ estimate: true, cost_usd: 0, data_source: 'sandbox' });
  });
});

describe('MCP long work', () => {
  it('sends progress notifications while research waits, when the client gives a progress token', () =>
    withSlowResearch(async () => {
      const client = await connect();
      const progress: Progress[] = [];
      const result = (await client.callTool(
        { name: 'research', arguments: { mode: 'web', seed: 'progress notifications for a slow query' } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      )) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { facts: unknown[] }).facts.length).toBeGreaterThan(0);
      // At least one at the start and one 2 s into the 2.6 s the sandbox takes.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (const [i, p] of progress.entries()) {
        expect(p.total).toBe(LIMITS.waitMsMax / 1000);
        expect(p.message).toMatch(/web research/);
        if (i > 0) expect(p.progress).toBeGreaterThan(given(progress[i - 1], 'the progress[i - 1]').progress);
      }
    }));

  it('says in a result that is still running how to collect it, and get_job collects it', async () => {
    const client = await connect();
    const result = await call(client, 'research', {
      mode: 'web',
      seed: 'a query answered later',
      wait_ms: 0,
    });
    const running = result.structuredContent as { job_id: string; status: string };
    expect(running.status).toMatch(/queued|running/);
    const collect = (result._meta as { collect: { tool: string; arguments: { job_id: string } } }).collect;
    expect(collect).toMatchObject({ tool: 'get_job', arguments: { job_id: running.job_id } });
    expect(result.content).toContainEqual(
      expect.objectContaining({ type: 'text', text: expect.stringMatching(/get_job/) }),
    );
    const collected = await call(client, collect.tool, collect.arguments);
    expect(collected.structuredContent).toMatchObject({ job_id: running.job_id, status: 'succeeded' });
  });
});

describe('research as an MCP task', () => {
  it('is offered as a task: tools/call with task answers at once, tasks/get follows the job, tasks/result gives the research', () =>
    withSlowResearch(async () => {
      const client = await connect();
      const { tools } = await client.listTools();
      expect(
        given(
          tools.find((tool) => tool.name === 'research'),
          'the find',
        ).execution,
      ).toEqual({ taskSupport: 'optional' });
      expect(tools.filter((tool) => tool.execution).map((tool) => tool.name)).toEqual(['research']);

      // Answered at once: while no research job can run, so the call cannot have waited for one.
      let task = { taskId: '' };
      await whilePaused(t, async () => {
        ({ task } = await client.request(
          {
            method: 'tools/call',
            params: {
              name: 'research',
              arguments: { mode: 'web', seed: 'a research run as a task' },
              task: { ttl: 60_000 },
            },
          },
          CreateTaskResultSchema,
        ));
        expect(task).toMatchObject({ status: 'working', taskId: expect.stringMatching(/^job_/), pollInterval: 5000 });
        expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
          taskId: task.taskId,
          status: 'working',
        });
      });

      // tasks/result waits for the job to end, then answers research's own result.
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({
        job_id: task.taskId,
        status: 'succeeded',
        data_source: 'sandbox',
      });
      expect((result.structuredContent as { facts: unknown[] }).facts.length).toBeGreaterThan(0);
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
        taskId: task.taskId,
        status: 'completed',
      });

      // Another site's key finds no such task.
      const other = await connect((await t.newSite()).key);
      await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    }));

  it('asks for approval before it queues a task over the threshold, and a token a plain call was given confirms it', async () => {
    const site = await t.newSite();
    expect((await t.call('PUT', '/v1/budget', { confirm_above_usd: 0 }, { key: site.key })).status).toBe(200);
    const client = await connect(site.key);
    const args = { mode: 'web', seed: 'a research that needs approval' };
    // The plain call (it would wait) is refused with a token...
    const asked = await call(client, 'research', args);
    const refusal = JSON.parse((asked.content[0] as { text: string }).text) as {
      code: string;
      confirm: string;
      message: string;
    };
    expect(refusal).toMatchObject({ code: 'approval_required', confirm: expect.stringMatching(/^cfm_/) });
    expect(refusal.message).toContain(refusal.confirm);
    // ... a task without one is refused the same way, as a JSON-RPC error that carries the token in its message...
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'research', arguments: args, task: {} } },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/approval threshold.*"confirm": "cfm_/);
    // ... and the plain call's token confirms the task (how long a call waits is not what it is approved for).
    const { task } = await client.request(
      {
        method: 'tools/call',
        params: { name: 'research', arguments: { ...args, confirm: refusal.confirm }, task: {} },
      },
      CreateTaskResultSchema,
    );
    expect(task).toMatchObject({ status: 'working', taskId: expect.stringMatching(/^job_/) });
    await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  });

  it('is no task for an id of a kept result of another tool', async () => {
    const client = await connect();
    const paged = linksPage(
      await call(client, 'serp_backlinks', { scope: 'example.org', depth: 'links', limit: 1000 }),
    );
    const resultId = paged.page.result_uri.replace('cm://results/', '');
    await expect(client.experimental.tasks.getTask(`result_${resultId}`)).rejects.toThrow(/Task not found/);
  });

  it('answers a task already completed for research answered at once, and refuses a task of a tool that runs none', async () => {
    const client = await connect();
    await client.listTools();
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'research', arguments: { mode: 'keywords', seed: 'trail shoes, hiking boots, rain jackets' } },
      CallToolResultSchema,
      { task: {} },
    ))
      messages.push(message);
    if (messages[0]?.type === 'error') throw messages[0].error;
    expect(messages[0]).toMatchObject({
      type: 'taskCreated',
      task: { status: 'completed', taskId: expect.stringMatching(/^result_/) },
    });
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { structuredContent: { mode: 'keywords' } } });

    const refused = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'recall', arguments: { query: 'x' } },
      CallToolResultSchema,
      { task: {} },
    ))
      refused.push(message);
    expect(refused).toEqual([
      { type: 'error', error: expect.objectContaining({ message: expect.stringMatching(/does not run as a task/) }) },
    ]);
  });
});

describe('a question built only from a recall result', () => {
  it('publishes with the recalled §2.3 sources as they are, its citations rendered, and no warning', async () => {
    const client = await connect();
    const seed = 'how long does sourdough starter keep';
    const researched = await client.callTool({ name: 'research', arguments: { mode: 'web', seed } });
    expect(researched.isError).toBeFalsy();
    const recalled = (await call(client, 'recall', { query: seed })).structuredContent as {
      results: { facts: { text: string; source_ids: string[] }[]; sources: Record<string, unknown>[] }[];
    };
    const [found] = recalled.results;
    expect(given(found, 'the found').facts.length).toBeGreaterThan(0);
    // Each fact a paragraph citing its own sources; the sources exactly as recall gave them.
    const answer = given(found, 'the found').facts.map((fact) => ({
      _type: 'paragraph',
      children: [{ _type: 'span', text: fact.text }, ...fact.source_ids.map((id) => ({ _type: 'sourceCitation', id }))],
    }));
    const published = await t.call('POST', '/questions', {
      slug: 'sourdough-starter-keeping',
      question: 'How long does a sourdough starter keep?',
      answer,
      sources: given(found, 'the found').sources,
    });
    expect(published.status).toBe(201);
    expect(published.body.warnings ?? []).toEqual([]);
    expect((await t.call('GET', `/questions/${published.body.id}`)).body.sources).toEqual(
      given(found, 'the found').sources,
    );
    const html = (
      await t.call('GET', `/sites/${t.siteId}/questions/sourdough-starter-keeping`, undefined, { key: null })
    ).text;
    const cited = new Set(given(found, 'the found').facts.flatMap((fact) => fact.source_ids));
    expect(cited.size).toBeGreaterThan(0);
    for (const [n] of given(found, 'the found').sources.entries())
      if (cited.has(String(given(given(found, 'the found').sources[n], 'the found.sources[n]').id)))
        expect(html).toContain(`href="#source-${n + 1}"`);
    expect(html).toContain(String(given(given(found, 'the found').sources[0], 'the found.sources[0]').url));
  }, 30_000);
});
