import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_APPS, MCP_TOOL_NAMES, TOOL_NAMES } from '@cm/contract';
import { resetServices } from '@cm/runtime';
import { startTestStack, type TestStack } from '../helpers/local';
import { whileQueued } from '../helpers/research';
import { given } from '../helpers/client';

/* POST /mcp on the local stack, driven by the MCP SDK's own client. */

let t: TestStack;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '300', MCP_ALLOWED_ORIGINS: 'https://agent.example.com' } });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
});

async function connect(
  headers: Record<string, string> = { 'X-API-Key': t.key },
  protocolVersion?: string,
): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } });
  if (protocolVersion) transport.setProtocolVersion(protocolVersion);
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw JSON-RPC POST, as curl would send it. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

/** An array nested `levels` deep. */
const nest = (levels: number): unknown => (levels <= 1 ? [] : [nest(levels - 1)]);

const textOf = (result: unknown) =>
  JSON.parse(given((result as { content: { type: string; text: string }[] }).content[0], 'the first content').text);

describe('MCP over Streamable HTTP', () => {
  it('initializes and lists every tool with its schemas and annotations, in under 60 KB (issues 29, 52, 53)', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('content-research');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(given(tool.description, 'the description').length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    for (const name of ['recall', 'db_select', 'find_pages', 'get_job', 'get_usage'])
      expect(given(given(byName[name], 'the byName[name]').annotations, 'the annotations').readOnlyHint).toBe(true);
    expect(
      tools.filter((tool) => given(tool.annotations, 'the annotations').destructiveHint).map((tool) => tool.name),
    ).toEqual(['db_delete']);
    expect(given(given(byName.get_keywords, 'the get_keywords').annotations, 'the annotations').openWorldHint).toBe(
      true,
    );
    expect(given(byName.research, 'the research').description).toMatch(/only after recall/);
    expect(given(byName.add_competitor, 'the add_competitor').description).toMatch(/[Cc]onfirm with the user/);
    expect(given(byName.research, 'the research').inputSchema.required).toEqual(['mode', 'seed']);

    const raw = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'x-api-key': t.key, 'mcp-protocol-version': '2025-06-18' },
    );
    const size = Buffer.byteLength(await raw.text());
    // Some clients cap what they read; 60 KB is about 14.5k tokens (issue 52's revision tools and issue 53's
    // rank fields took it past 50, issue 53's search_traffic, 4.7 KB with its result's schema, past 56).
    expect(size).toBeLessThan(60 * 1024);
  });

  it('offers the MCP Apps as ui:// resources, linked from the tools whose results they draw, and reads their HTML', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const linked = Object.fromEntries(
      tools
        .filter((tool) => tool._meta?.ui)
        .map((tool) => [tool.name, (given(tool._meta, 'the _meta').ui as { resourceUri: string }).resourceUri]),
    );
    expect(linked).toEqual({
      serp_landscape: MCP_APPS.keyword_landscape.uri,
      serp_backlinks: MCP_APPS.backlinks.uri,
      get_usage: MCP_APPS.spend.uri,
      search_traffic: MCP_APPS.search_traffic.uri,
    });
    for (const tool of tools.filter((t) => t._meta?.ui))
      expect(given(tool._meta, 'the _meta')['ui/resourceUri']).toBe(linked[tool.name]);

    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual(
      Object.values(MCP_APPS).map((app) => [app.uri, 'text/html;profile=mcp-app']),
    );
    for (const resource of resources) {
      // Nothing outside the resource: no domain to connect to or load from.
      expect(resource._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      const read = await client.readResource({ uri: resource.uri });
      const [content] = read.contents as { uri: string; mimeType: string; text: string }[];
      expect(content).toMatchObject({ uri: resource.uri, mimeType: 'text/html;profile=mcp-app' });
      expect(given(content, 'the content').text).toMatch(
        /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/,
      );
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['cm://results/{result_id}{?piece}']);
    await expect(client.readResource({ uri: 'ui://content-research/nothing.html' })).rejects.toThrow(
      /Resource not found/,
    );
  });

  it('speaks protocol versions 2025-06-18 and 2025-11-25', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const reply = await post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
        },
        { authorization: `Bearer ${t.key}` },
      );
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/application\/json/);
      expect(reply.headers.get('mcp-session-id')).toBeNull();
      expect(((await reply.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
    }
  });

  it('answers get_keywords with the same JSON as POST /v1/tools/get_keywords, with cost in _meta', async () => {
    const client = await connect({ Authorization: `Bearer ${t.key}` });
    const input = { seeds: ['trail running shoes', 'marathon training plan'] };
    const result = await client.callTool({ name: 'get_keywords', arguments: input });
    const rest = await t.call('POST', '/v1/tools/get_keywords', input);
    expect(result.isError).toBeFalsy();
    const strip = (v: Record<string, unknown>) => ({
      ...v,
      keywords: (v.keywords as Record<string, unknown>[]).map(({ updated_at: _u, checked_at: _c, ...k }) => k),
    });
    expect(strip(result.structuredContent as Record<string, unknown>)).toEqual(strip(rest.body));
    expect(textOf(result)).toEqual(result.structuredContent);
    expect(result._meta).toEqual({
      cost_usd: rest.body.cost_usd,
      cached: rest.body.cached,
      data_source: rest.body.data_source,
    });
  });

  it('returns a research web job that get_job finishes', async () => {
    const client = await connect();
    const started = await client.callTool({
      name: 'research',
      arguments: { mode: 'web', seed: 'how long do trail shoes last', wait_ms: 0 },
    });
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({
      job_id: expect.any(String),
      status: expect.stringMatching(/queued|running/),
      retry_after_ms: 5000,
    });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    const job = await client.callTool({ name: 'get_job', arguments: { job_id: jobId, wait_ms: 10_000 } });
    expect(job.structuredContent).toMatchObject({
      job_id: jobId,
      tool: 'research',
      status: 'succeeded',
      result: { facts: expect.any(Array) },
    });
    expect(job.structuredContent).toEqual((await t.call('GET', `/v1/jobs/${jobId}`)).body);
  });

  it('answers a failure as an isError result carrying the REST error object and no structuredContent', async () => {
    const client = await connect();
    const missing = await client.callTool({ name: 'db_delete', arguments: { table: 'cm_topics', id: 987654 } });
    const rest = await t.call('POST', '/v1/tools/db_delete', { table: 'cm_topics', id: 987654 });
    expect(rest.status).toBe(404);
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    expect(textOf(missing)).toEqual(rest.body);

    const invalid = await client.callTool({ name: 'serp_landscape', arguments: { depth: 'metrics' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatchObject({
      error: 'validation_failed',
      code: 'validation_failed',
      issues: expect.any(Array),
    });
  });

  it('answers a name that is no tool with the protocol error of the spec’s tools page, -32602, in every 2025 revision', async () => {
    const client = await connect();
    const unknown = { code: -32602, message: expect.stringContaining('Unknown tool: "no_such_tool"') };
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject(unknown);
    // The name is checked where the call comes in, before a cursor, a task or anything else of the call is read.
    await expect(client.callTool({ name: 'no_such_tool', arguments: { cursor: 'page-2' } })).rejects.toMatchObject(
      unknown,
    );
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const reply = await post(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {}, task: {} } },
        { 'x-api-key': t.key, 'mcp-protocol-version': version },
      );
      expect(await reply.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32602,
          message: expect.stringMatching(/^Unknown tool: "no_such_tool"/),
          data: { error: 'unknown_tool', code: 'unknown_tool', message: expect.any(String), name: 'no_such_tool' },
        },
      });
    }
  });

  it("answers the 11th concurrent research call with the spec's error object", async () => {
    // No job starts, and so none ends and frees its place, until the 11 calls have their answers.
    // Three sites, none past its share (5) of the 10 places: the 11th call is refused for the cap itself.
    const others = [await t.newSite(), await t.newSite()];
    await whileQueued(t, async () => {
      const sites = [await connect(), ...(await Promise.all(others.map((o) => connect({ 'X-API-Key': o.key }))))];
      const results = await Promise.all(
        Array.from({ length: 11 }, (_v, i) =>
          given(sites[i % 3], 'the sites[i % 3]').callTool({
            name: 'research',
            arguments: { mode: 'web', seed: `concurrent question ${i}`, wait_ms: 0 },
          }),
        ),
      );
      const refused = results.filter((r) => r.isError);
      expect(refused).toHaveLength(1);
      expect(given(refused[0], 'the refused[0]').structuredContent).toBeUndefined();
      expect(textOf(given(refused[0], 'the refused[0]'))).toMatchObject({
        error: 'concurrency_limit_exceeded',
        max_concurrent: 10,
        retry_after_ms: 30000,
      });
    });
  });

  it('scopes every call to the key’s site: find_pages lists that site’s pages with ids and URLs', async () => {
    for (const slug of ['trail-shoes-guide', 'road-shoes-guide', 'marathon-plan'])
      await t.call('POST', '/articles', {
        slug,
        title: `Guide ${slug}`,
        body: [{ _type: 'paragraph', text: 'x' }],
        status: 'published',
      });
    const other = await t.newSite();
    const client = await connect();
    const found = await client.callTool({ name: 'find_pages', arguments: { query: 'shoes guide' } });
    const pages = (
      found.structuredContent as { pages: { slug: string; id: string; url: string; type: string; live: boolean }[] }
    ).pages;
    expect(pages.map((p) => p.slug).sort()).toEqual(['road-shoes-guide', 'trail-shoes-guide']);
    expect(pages[0]).toMatchObject({
      type: 'article',
      id: expect.any(String),
      url: expect.stringContaining(`/sites/${t.siteId}/articles/`),
    });
    const paged = await client.callTool({ name: 'find_pages', arguments: { limit: 1 } });
    const first = paged.structuredContent as { pages: unknown[]; next_cursor: string };
    expect(first.pages).toHaveLength(1);
    const next = await client.callTool({ name: 'find_pages', arguments: { limit: 1, cursor: first.next_cursor } });
    expect((next.structuredContent as { pages: unknown[] }).pages).toHaveLength(1);

    const otherClient = await connect({ 'X-API-Key': other.key });
    const none = await otherClient.callTool({ name: 'find_pages', arguments: {} });
    expect((none.structuredContent as { pages: unknown[] }).pages).toEqual([]);
    const usage = await client.callTool({ name: 'get_usage', arguments: {} });
    const { to: _to, ...rest } = (await t.call('GET', '/v1/usage')).body;
    expect(usage.structuredContent).toMatchObject(rest);
    // The site's budget comes with it, as GET /v1/budget answers it.
    expect((usage.structuredContent as { budget: unknown }).budget).toEqual((await t.call('GET', '/v1/budget')).body);
  });

  it('pages a result over the size limit with a cursor, and says so', async () => {
    process.env.MCP_RESULT_MAX_BYTES = '2000';
    resetServices();
    try {
      for (let i = 0; i < 30; i++)
        await t.call('POST', '/v1/tools/db_insert', {
          table: 'cm_topics',
          row: { name: `topic number ${i} with a longer name` },
        });
      const client = await connect();
      const first = await client.callTool({ name: 'db_select', arguments: { table: 'cm_topics', limit: 200 } });
      const page = first.structuredContent as { rows: unknown[]; next_cursor: string | null };
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(2000);
      expect(page.rows.length).toBeGreaterThan(0);
      expect(page.rows.length).toBeLessThan(30);
      expect(page.next_cursor).toEqual(expect.any(String));
      expect(first._meta).toMatchObject({ paged: true });
      expect(given((first.content as { text: string }[])[1], 'the second content').text).toMatch(/next_cursor/);
      const second = await client.callTool({
        name: 'db_select',
        arguments: { table: 'cm_topics', limit: 200, cursor: page.next_cursor },
      });
      expect(given((second.structuredContent as { rows: { id: number }[] }).rows[0], 'the row').id).toBeGreaterThan(
        (page.rows.at(-1) as { id: number }).id,
      );
    } finally {
      delete process.env.MCP_RESULT_MAX_BYTES;
      resetServices();
    }
  });
});

describe('MCP HTTP edges', () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };

  it('answers 401 with WWW-Authenticate: Bearer without a key or with an unknown one, before any MCP work', async () => {
    for (const headers of [{}, { 'x-api-key': 'not-a-key' }, { authorization: 'Bearer not-a-key' }] as Record<
      string,
      string
    >[]) {
      const reply = await post(init, headers);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      expect(await reply.json()).toMatchObject({ error: 'unauthorized', code: 'unauthorized' });
    }
    await expect(connect({})).rejects.toThrow();
  });

  it('answers 405 to GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await t.call(method, '/mcp', undefined, { headers: { accept: 'text/event-stream' } });
      expect(reply.status).toBe(405);
      expect(reply.body).toMatchObject({ error: 'method_not_allowed' });
      expect(reply.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses an Origin that is not allowed with 403, and takes loopback, configured and absent origins', async () => {
    const refused = await post(init, { 'x-api-key': t.key, origin: 'https://evil.example.net' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'origin_not_allowed' });
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'https://agent.example.com']) {
      expect((await post(init, { 'x-api-key': t.key, origin })).status).toBe(200);
    }
    expect((await post(init, { 'x-api-key': t.key })).status).toBe(200);
  });

  it('answers a body that is not JSON with JSON-RPC -32700 on both endpoints, whatever the headers, once the key is checked', async () => {
    const parseError = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    };
    for (const path of ['/mcp', '/mcp/oauth'])
      for (const [body, headers] of [
        ['{"jsonrpc": "2.0", "id": 1,', {}],
        ['', {}],
        ['not json', { accept: 'application/json' }],
        ['{"jsonrpc"', { 'mcp-protocol-version': '2026-07-28' }],
      ] as const) {
        const reply = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'x-api-key': t.key,
            ...headers,
          },
          body,
        });
        expect(reply.status).toBe(400);
        expect(await reply.json()).toEqual(parseError);
      }
    // JSON nested past the service's limit is refused as on every route, before anything walks it.
    const deep = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'db_select', arguments: { where: nest(70) } } },
      { 'x-api-key': t.key },
    );
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('64 levels'),
    });
    // Without a key it is the 401 of any request: nothing of the body is read before the key.
    const noKey = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(noKey.status).toBe(401);
  });

  it('refuses a JSON-RPC batch on 2025-06-18 and later (batching was removed then), and answers one on 2025-03-26', async () => {
    const pings = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const initialize = (protocolVersion: string) => [{ ...init, params: { ...init.params, protocolVersion } }];
    const refused = [
      [pings, { 'mcp-protocol-version': '2025-06-18' }],
      [pings, { 'mcp-protocol-version': '2025-11-25' }],
      [initialize('2025-06-18'), {}],
    ] as const;
    for (const [batch, headers] of refused) {
      const reply = await post(batch, { 'x-api-key': t.key, ...headers });
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('batches were removed in protocol 2025-06-18') },
      });
    }
    // 2026-07-28 has none either (the SDK refuses them).
    const modern = await post(
      [{ ...pings[0], params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }],
      { 'x-api-key': t.key },
    );
    expect(modern.status).toBe(400);
    expect(((await modern.json()) as { error: { code: number } }).error.code).toBe(-32600);
    // 2025-03-26 has batches: named, or assumed of a request that names no version, as its spec says.
    for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Record<string, string>[]) {
      const reply = await post(pings, { 'x-api-key': t.key, ...headers });
      expect(reply.status).toBe(200);
      const answers = (await reply.json()) as { id: number; result: { tools?: unknown[] } }[];
      expect(answers.map((a) => a.id)).toEqual([1, 2]);
      expect(given(answers[1], 'the answers[1]').result.tools).toHaveLength(MCP_TOOL_NAMES.length);
    }
    expect((await post(initialize('2025-03-26'), { 'x-api-key': t.key })).status).toBe(200);
  });

  it('lists the research tools of the registry', () => {
    expect(MCP_TOOL_NAMES.slice(0, TOOL_NAMES.length)).toEqual([...TOOL_NAMES]);
  });
});
