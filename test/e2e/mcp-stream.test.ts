import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '@cm/contract';
import { serpPrice } from '@cm/providers';
import { siteClient, startTestStack, type SiteClient, type TestStack } from '../helpers/local';
import { given } from '../helpers/client';

/*
 * The streaming MCP endpoint (the mcp-stream function's URL on AWS), through the SDK's own client:
 * what it streams arrives while the call runs, and a call over the approval threshold asks the user
 * by elicitation, where the client answers them.
 */

let t: TestStack;
const clients: Client[] = [];
// Time enough for a client on a busy machine to answer the questions the tests answer; the late one waits it out.
const WAIT_MS = 4_000;
const SERP = serpPrice(LIMITS.serpDepth);

beforeAll(async () => {
  t = await startTestStack({
    env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '200', MCP_APPROVAL_WAIT_MS: String(WAIT_MS) },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
});

type Answer = (
  request: ElicitRequest,
  extra: { requestId: string | number; signal: AbortSignal },
) => Promise<ElicitResult>;

/** An SDK client of `url`; with `answer`, one that declares elicitation and answers with it. */
async function connect(key: string, url: string, answer?: Answer) {
  const capabilities: ClientCapabilities = answer ? { elicitation: {} } : {};
  const client = new Client({ name: 'mcp-stream', version: '1.0.0' }, { capabilities });
  if (answer) client.setRequestHandler(ElicitRequestSchema, answer);
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { 'X-API-Key': key } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const paidCalls = async (site: SiteClient) => (await site.client.route('GET /v1/usage')).body.calls;
const refresh = (client: Client, keyword: string) =>
  client.callTool({ name: 'serp_keyword_refresh', arguments: { keyword } }) as Promise<CallToolResult>;
const errorOf = (result: CallToolResult) => {
  const [first] = result.content;
  return JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, any>;
};

async function thresholdSite(name: string) {
  const site = await siteClient(t, name);
  await site.call('PUT', '/v1/budget', { confirm_above_usd: 0.001 });
  return site;
}

describe('the streaming endpoint', () => {
  it('delivers progress while the call waits: the job it waits for runs only once the first notification has arrived', async () => {
    const { client } = await connect(t.key, t.stack.mcpStreamUrl);
    const research = t.stack.queues.research;
    research.pause();
    let released = 0;
    try {
      const result = (await client.callTool(
        { name: 'research', arguments: { mode: 'web', seed: 'streamed progress', wait_ms: 20_000 } },
        undefined,
        {
          onprogress: () => {
            // Read whole at the end (as API Gateway sends it), the call would have waited its 20 s with the job held.
            if (released++ === 0) research.resume();
          },
        },
      )) as CallToolResult;
      expect(released).toBeGreaterThanOrEqual(1);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'succeeded' });
      expect((result.structuredContent as { facts: unknown[] }).facts.length).toBeGreaterThan(0);
    } finally {
      research.resume();
    }
  });

  it('answers what the API endpoint answers: tools/list, and its refusals in the error shape', async () => {
    const { client } = await connect(t.key, t.stack.mcpStreamUrl);
    const { tools } = await client.listTools();
    const { client: viaApi } = await connect(t.key, t.url);
    expect(tools).toEqual((await viaApi.listTools()).tools);

    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${t.stack.mcpStreamUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const noKey = await post('/mcp', {});
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ code: 'unauthorized' });
    const elsewhere = await post('/other', { 'x-api-key': t.key });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: 'not_found' });
    const get = await fetch(`${t.stack.mcpStreamUrl}/mcp`, { headers: { 'x-api-key': t.key } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    // JSON-RPC's own refusals, as the API endpoint answers them.
    const notJson = await fetch(`${t.stack.mcpStreamUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': t.key,
      },
      body: '{"jsonrpc": "2.0",',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const batch = await fetch(`${t.stack.mcpStreamUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': t.key,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]),
    });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('links to the API, not to itself: find_pages gives the visitor-page URLs the API serves', async () => {
    await t.call('POST', '/articles', {
      slug: 'streamed-link',
      title: 'Streamed link',
      body: [{ _type: 'paragraph', text: 'x' }],
      status: 'published',
    });
    const { client } = await connect(t.key, t.stack.mcpStreamUrl);
    const found = (await client.callTool({
      name: 'find_pages',
      arguments: { query: 'streamed link' },
    })) as CallToolResult;
    const [page] = (found.structuredContent as { pages: Array<{ url: string }> }).pages;
    expect(given(page, 'the page').url).toBe(`${t.url}/sites/${t.siteId}/articles/streamed-link`);
    expect((await fetch(given(page, 'the page').url)).status).toBe(200);
  });
});

describe('approval by elicitation', () => {
  it('asks a client that answers elicitations, mid-call, with the price; accepted, the call is made once', async () => {
    const site = await thresholdSite('Elicit accept');
    const asked: ElicitRequest[] = [];
    const { client, transport } = await connect(site.key, t.stack.mcpStreamUrl, async (request) => {
      asked.push(request);
      return { action: 'accept', content: {} };
    });
    expect(transport.sessionId).toMatch(/^elicit\./);
    const before = await paidCalls(site);

    const result = await refresh(client, 'trail shoes');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ row: { keyword: 'trail shoes' }, cost_usd: SERP });
    expect(asked).toHaveLength(1);
    expect(given(asked[0], 'the asked[0]').params).toMatchObject({
      mode: 'form',
      requestedSchema: { type: 'object', properties: {} },
    });
    expect(given(asked[0], 'the asked[0]').params.message).toMatch(
      new RegExp(`serp_keyword_refresh would cost about \\$${SERP.toFixed(4)}.*threshold of \\$0\\.0010`),
    );
    expect(await paidCalls(site)).toBe(before + 1);
  });

  it('declined or dismissed, the call is not made: an approval_declined result, nothing spent', async () => {
    const site = await thresholdSite('Elicit decline');
    for (const action of ['decline', 'cancel'] as const) {
      const { client } = await connect(site.key, t.stack.mcpStreamUrl, async () => ({ action }));
      const before = await paidCalls(site);
      const result = await refresh(client, 'road shoes');
      expect(result.isError).toBe(true);
      expect(errorOf(result)).toMatchObject({
        code: 'approval_declined',
        message: expect.stringMatching(action === 'decline' ? /declined/ : /dismissed/),
        estimate: { total_usd: SERP, approval_required: true },
      });
      expect(errorOf(result).confirm).toBeUndefined();
      expect(await paidCalls(site)).toBe(before);
    }
  });

  it('not answered in time, the call answers approval_required with its token, takes the question down, and refuses a late answer', async () => {
    const site = await thresholdSite('Elicit late');
    let question: { id: string | number; signal: AbortSignal } | undefined;
    const { client } = await connect(site.key, t.stack.mcpStreamUrl, (_request, extra) => {
      question = { id: extra.requestId, signal: extra.signal };
      return new Promise(() => undefined);
    });
    const before = await paidCalls(site);
    const started = Date.now();
    const result = await refresh(client, 'hiking boots');
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS);
    expect(result.isError).toBe(true);
    const refusal = errorOf(result);
    expect(refusal).toMatchObject({ code: 'approval_required', confirm: expect.stringMatching(/^cfm_/) });
    // notifications/cancelled took the question down at the client (the SDK aborts its handler)...
    expect(given(question, 'the question').signal.aborted).toBe(true);
    // ... and an answer sent anyway is refused.
    const late = await answer(site.key, given(question, 'the question').id);
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ code: 'validation_failed' });
    expect(await paidCalls(site)).toBe(before);
    // The token still confirms the call, as without elicitation.
    const confirmed = (await client.callTool({
      name: 'serp_keyword_refresh',
      arguments: { keyword: 'hiking boots', confirm: refusal.confirm },
    })) as CallToolResult;
    expect(confirmed.isError).toBeFalsy();
    expect(await paidCalls(site)).toBe(before + 1);
  });

  it('takes an error answer (the client could not ask) as no answer: approval_required with its token', async () => {
    const site = await thresholdSite('Elicit error');
    const { client } = await connect(site.key, t.stack.mcpStreamUrl, async () => {
      throw new Error('this client cannot show forms now');
    });
    const before = await paidCalls(site);
    const result = await refresh(client, 'trail shoes');
    expect(errorOf(result)).toMatchObject({ code: 'approval_required', confirm: expect.stringMatching(/^cfm_/) });
    expect(await paidCalls(site)).toBe(before);
  });

  it('gives up when the client goes mid-question: the question is closed, a late accept is refused, nothing is spent', async () => {
    const site = await thresholdSite('Elicit gone');
    let questionId: string | number | undefined;
    const { client } = await connect(site.key, t.stack.mcpStreamUrl, (_request, extra) => {
      questionId = extra.requestId;
      return new Promise(() => undefined);
    });
    const before = await paidCalls(site);
    const call = refresh(client, 'road shoes').catch((error: unknown) => error);
    await waitFor(() => questionId !== undefined);
    await client.close();
    await call;
    const accept = () => answer(site.key, questionId);
    // The server notices the stream is gone and closes the question, well before its wait would end.
    let status = 0;
    for (let i = 0; i < 30 && status !== 400; i++) {
      status = (await accept()).status;
      if (status !== 400) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await paidCalls(site)).toBe(before);
  });

  it('is not asked of a client that does not answer elicitations, nor on the API endpoint, which sends replies whole', async () => {
    const site = await thresholdSite('Elicit none');
    const asked: unknown[] = [];
    const answer: Answer = async (request) => {
      asked.push(request);
      return { action: 'accept', content: {} };
    };
    for (const [url, withAnswer] of [
      [t.stack.mcpStreamUrl, undefined],
      [t.url, answer],
    ] as const) {
      const { client, transport } = await connect(site.key, url, withAnswer);
      expect(transport.sessionId).toBeUndefined();
      const result = await refresh(client, 'trail shoes');
      expect(errorOf(result)).toMatchObject({ code: 'approval_required', confirm: expect.stringMatching(/^cfm_/) });
    }
    expect(asked).toEqual([]);
  });

  it('takes an answer only to a question its site was asked and awaits: not another site’s, an unknown one, or one answered', async () => {
    const asker = await thresholdSite('Elicit asker');
    const other = await siteClient(t, 'Elicit other');
    let questionId: string | number | undefined;
    let decide: (result: ElicitResult) => void = () => undefined;
    const { client } = await connect(asker.key, t.stack.mcpStreamUrl, (_request, extra) => {
      questionId = extra.requestId;
      return new Promise((resolve) => (decide = resolve));
    });
    const call = refresh(client, 'trail shoes');
    await waitFor(() => questionId !== undefined);
    expect(questionId).toMatch(/^approval\.[\w-]{22}$/);
    for (const [key, id] of [
      [other.key, questionId],
      [asker.key, 'approval.AAAAAAAAAAAAAAAAAAAAAA'],
    ]) {
      const refused = await answer(String(key), id);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'validation_failed' });
    }
    decide({ action: 'decline' });
    expect(errorOf(await call).code).toBe('approval_declined');
    expect((await answer(asker.key, questionId)).status).toBe(400);
  });
});

/** A client's answer to approval question `id`, POSTed to the streaming endpoint as the SDK's client sends it. */
const answer = (key: string, id: unknown) =>
  fetch(`${t.stack.mcpStreamUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'x-api-key': key,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'accept', content: {} } }),
  });

async function waitFor(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}
