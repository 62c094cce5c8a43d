import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LIMITS, MCP_APPS, MCP_TOOL_NAMES } from '@cm/contract';
import { serpPrice } from '@cm/providers';
import { siteClient, startTestStack, withStackEnv, type SiteClient, type TestStack } from '../helpers/local';

/*
 * Protocol 2026-07-28 on the same endpoint the 2025 clients use (the other MCP tests drive those with
 * the v1 SDK's client): the v2 SDK's client finds it by server/discover, and every feature works as
 * on 2025: the tools, Apps, estimates, approval (by input_required), pages with a resource of the
 * whole, progress, and research as a task (the io.modelcontextprotocol/tasks extension, which the SDK's
 * client does not speak: raw JSON-RPC, as a client that does would send it).
 */

let t: TestStack;
const clients: Array<{ close(): Promise<void> }> = [];
const MAX = 20_000;
const SERP = serpPrice(LIMITS.serpDepth);
const MODERN = '2026-07-28';

beforeAll(async () => {
  t = await startTestStack({
    env: { SANDBOX_RESEARCH_MS: '300', SANDBOX_LIST_PRICES: '1', MCP_RESULT_MAX_BYTES: String(MAX) },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
});

type Elicit = (params: { message: string }) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

/** A v2 client of `url` that negotiates the era; with `elicit`, one that answers form elicitations. */
async function connect(key = t.key, url = t.url, elicit?: Elicit): Promise<Client> {
  const client = new Client(
    { name: 'mcp-modern', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) client.setRequestHandler('elicitation/create', async (request) => elicit(request.params));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }),
  );
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>, onprogress?: () => void) =>
  await client.callTool({ name, arguments: args }, onprogress ? { onprogress } : undefined);
const textOf = (result: CallToolResult) => {
  const [first] = result.content;
  return JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, any>;
};
const paidCalls = async (site: SiteClient) => (await site.client.route('GET /v1/usage')).body.calls;

/** A raw 2026-07-28 request, its headers as the spec has them; `capabilities` the client's, per request. */
async function raw(key: string, method: string, params: Record<string, unknown>, capabilities: object = {}) {
  // Mcp-Name mirrors what the request names: a tool, a resource or a task.
  const name = [params.name, params.uri, params.taskId].find((value) => typeof value === 'string');
  const response = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': key,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as { result?: any; error?: any } };
}
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

describe('protocol 2026-07-28', () => {
  it('is found by server/discover and lists what 2025 lists, with cache hints, in under 60 KB', async () => {
    const modern = await connect();
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getServerVersion()?.name).toBe('content-research');
    expect(modern.getInstructions()).toMatch(/estimate: true/);
    const legacy = new ClientV1({ name: 'v1', version: '1.0.0' });
    await legacy.connect(
      new TransportV1(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'X-API-Key': t.key } } }),
    );
    clients.push(legacy);
    const [{ tools }, { tools: legacyTools }] = await Promise.all([modern.listTools(), legacy.listTools()]);
    expect(tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    // The same tools; 2026-07-28 has no per-tool task support (research is a task by the extension).
    expect(tools).toEqual(legacyTools.map(({ execution: _execution, ...tool }) => tool));

    const listed = await raw(t.key, 'tools/list', {});
    expect(listed.body.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(Buffer.byteLength(JSON.stringify(listed.body))).toBeLessThan(60 * 1024);
    const discovered = await raw(t.key, 'server/discover', {});
    expect(discovered.body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {}, resources: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    // The standard headers must agree with the body (the SDK checks them).
    const mismatch = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': t.key,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'recall',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'db_select',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });

  it('offers the Apps as resources, the HTML cacheable by anyone, linked from their tools', async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(Object.values(MCP_APPS).map((app) => app.uri));
    const read = await raw(t.key, 'resources/read', { uri: MCP_APPS.spend.uri });
    expect(read.body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
    expect(read.body.result.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'get_usage')?._meta?.ui).toEqual({ resourceUri: MCP_APPS.spend.uri });
  });

  it('answers tools as 2025 does, and an estimate without spending', async () => {
    const client = await connect();
    const input = { seeds: ['trail running shoes'] };
    const estimate = await call(client, 'get_keywords', { ...input, estimate: true });
    expect(estimate.structuredContent).toMatchObject({
      estimate: true,
      tool: 'get_keywords',
      total_usd: expect.any(Number),
    });
    expect(estimate._meta).toMatchObject({ estimate: true, cost_usd: 0 });
    const result = await call(client, 'get_keywords', input);
    expect(result.structuredContent).toMatchObject({
      keywords: [expect.objectContaining({ keyword: input.seeds[0] })],
    });
    expect(textOf(result)).toEqual(result.structuredContent);
    const refused = await call(client, 'db_delete', { table: 'cm_topics', id: 987654 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatchObject({ code: 'not_found' });
    // A name that is no tool is the protocol error of 2026-07-28's tools page, not a tool's failure.
    await expect(call(client, 'no_such_tool', {})).rejects.toMatchObject({ code: -32602 });
    const unknown = await raw(t.key, 'tools/call', { name: 'no_such_tool', arguments: {} });
    expect(unknown.body.error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Unknown tool: "no_such_tool"/),
      data: expect.objectContaining({ code: 'unknown_tool', name: 'no_such_tool' }),
    });
  });

  it('asks for approval by input_required: accepted, the call is made once; declined, nothing is spent', async () => {
    const site = await siteClient(t, 'Modern approval');
    await site.call('PUT', '/v1/budget', { confirm_above_usd: 0.001 });
    const asked: string[] = [];
    const accepting = await connect(site.key, t.url, async ({ message }) => {
      asked.push(message);
      return { action: 'accept' };
    });
    const before = await paidCalls(site);
    const made = await call(accepting, 'serp_keyword_refresh', { keyword: 'trail shoes' });
    expect(made.isError).toBeFalsy();
    expect(made.structuredContent).toMatchObject({ row: { keyword: 'trail shoes' }, cost_usd: SERP });
    expect(asked).toEqual([expect.stringMatching(/serp_keyword_refresh would cost about .*threshold of \$0\.0010/)]);
    expect(await paidCalls(site)).toBe(before + 1);

    // Asked on the streaming endpoint too, whose 2025 clients are asked mid-call instead.
    for (const [url, action] of [
      [t.url, 'decline'],
      [t.stack.mcpStreamUrl, 'cancel'],
    ] as const) {
      const declining = await connect(site.key, url, async () => ({ action }));
      const declined = await call(declining, 'serp_keyword_refresh', { keyword: 'road shoes' });
      expect(declined.isError).toBe(true);
      expect(textOf(declined)).toMatchObject({ code: 'approval_declined', estimate: { total_usd: SERP } });
      expect(textOf(declined).confirm).toBeUndefined();
    }
    // A client that answers no elicitation is handed the token, as in 2025.
    const plain = await call(await connect(site.key), 'serp_keyword_refresh', { keyword: 'road shoes' });
    expect(textOf(plain)).toMatchObject({ code: 'approval_required', confirm: expect.stringMatching(/^cfm_/) });
    expect(await paidCalls(site)).toBe(before + 1);
  });

  it('pages a large result with a resource_link to the whole, and reports progress while research waits', async () => {
    const client = await connect();
    const first = await call(client, 'serp_backlinks', { scope: 'example.org', depth: 'links', limit: 1000 });
    const page = first.structuredContent as { next_cursor: string; page: { result_uri: string; total: number } };
    expect(first._meta).toMatchObject({ paged: true, max_bytes: MAX });
    expect(first.content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: page.page.result_uri }));
    const next = await call(client, 'serp_backlinks', { cursor: page.next_cursor });
    expect((next.structuredContent as { page: { offset: number } }).page.offset).toBeGreaterThan(0);
    const piece = await raw(t.key, 'resources/read', { uri: page.page.result_uri });
    expect(piece.body.result).toMatchObject({ cacheScope: 'private', contents: [{ _meta: { piece: 1 } }] });

    await withStackEnv(t, { SANDBOX_RESEARCH_MS: '2600' }, async () => {
      let notified = 0;
      const research = await call(client, 'research', { mode: 'web', seed: 'modern progress', wait_ms: 20_000 }, () => {
        notified++;
      });
      expect(research.structuredContent).toMatchObject({ status: 'succeeded' });
      expect(notified).toBeGreaterThanOrEqual(2);
    });
  });

  it('runs research as a task for a client that declares the tasks extension, and only for it', async () => {
    const created = await raw(
      t.key,
      'tools/call',
      { name: 'research', arguments: { mode: 'web', seed: 'modern task' } },
      TASKS,
    );
    expect(created.body.result).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^job_/),
      status: 'working',
      ttlMs: 7 * 86_400_000,
      pollIntervalMs: 5000,
    });
    const { taskId } = created.body.result as { taskId: string };
    let task: any;
    for (let i = 0; i < 40; i++) {
      task = (await raw(t.key, 'tasks/get', { taskId }, TASKS)).body.result;
      if (task.status !== 'working') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(task).toMatchObject({ resultType: 'complete', taskId, status: 'completed' });
    expect(task.result.structuredContent).toMatchObject({
      job_id: taskId,
      status: 'succeeded',
      facts: expect.any(Array),
    });
    expect((await raw(t.key, 'tasks/cancel', { taskId }, TASKS)).body.result).toMatchObject({ resultType: 'complete' });

    // Without the extension: no task is answered, and the task methods ask for it.
    const waited = await raw(t.key, 'tools/call', {
      name: 'research',
      arguments: { mode: 'web', seed: 'modern task' },
    });
    expect(waited.body.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'succeeded' } });
    const undeclared = await raw(t.key, 'tasks/get', { taskId });
    expect(undeclared.body.error).toMatchObject({ code: -32021 });
    // Another site's task is not found.
    const other = await t.newSite('Modern other');
    expect((await raw(other.key, 'tasks/get', { taskId }, TASKS)).body.error).toMatchObject({ code: -32602 });
  });
});
