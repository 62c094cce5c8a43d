import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildOpenApi, MCP_APPS, queueUrlEnvName, WORKERS, type WorkerName } from '@cm/contract';
import { ensureTable, scheduledEvent, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient, createStore } from '@cm/store';
import { writeBundle } from '../../infra/bundle-report';
import { FUNCTION_ENTRIES, RUNTIME, type FunctionId } from '../../infra/bundling';
import { apiEvent, sqsEvent } from '../helpers/lambda-events';
import { describeWith, findNode24, machineProbe } from '../helpers/platform';
import { given } from '../helpers/client';

/*
 * Every function's bundle, built with the stack's esbuild options, invoked with a synthetic event on
 * Node 24 (the runtime the stack deploys to: the optional node-<platform> package's binary, or one on
 * PATH or in NODE24_BINARY; test/helpers/platform.ts) against an
 * embedded DynamoDB. One Node 24 process hosts all the bundles; the queues are a stand-in SQS endpoint
 * that keeps what is sent, so each worker is fed the messages the functions before it sent.
 */

const node24 = findNode24(machineProbe());
const NODE24 = 'path' in node24 ? node24.path : '';
const TABLE_NAME = 'node24';

let dir: string;
let dynamo: EmbeddedDynamo;
let sqs: Server;
let host: ChildProcess;
let hostVersion: string;
/** What the host printed: shown when an invocation fails. */
let output = '';
let key: string;
let siteId: number;
/** Message bodies sent to each queue, in order. */
const sent: Record<WorkerName, string[]> = {
  relink: [],
  'relink-pages': [],
  research: [],
  monitor: [],
  'monitor-plan': [],
  rank: [],
  'rank-collect': [],
  'budget-warning': [],
  indexnow: [],
  'search-console': [],
};
const invoked = new Set<FunctionId>();

/** SQS's JSON protocol, SendMessage only: the body is kept by queue, and the reply carries the MD5 the SDK checks. */
function startSqs(): Promise<string> {
  sqs = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { QueueUrl: string; MessageBody: string };
      if (req.headers['x-amz-target'] !== 'AmazonSQS.SendMessage') return res.writeHead(400).end();
      sent[input.QueueUrl.split('/').pop() as WorkerName].push(input.MessageBody);
      const md5 = createHash('md5').update(input.MessageBody).digest('hex');
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ MessageId: randomUUID(), MD5OfMessageBody: md5 }));
    });
  });
  return new Promise((resolve) =>
    sqs.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(sqs.address() as AddressInfo).port}`)),
  );
}

const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
let nextId = 0;

/** Invokes a function's bundle in the Node 24 host, as Lambda would, with its time limit. */
function invoke(name: FunctionId, event: unknown, timeoutMs = 29_000): Promise<any> {
  invoked.add(name);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    host.send({ id, bundle: join(dir, name, 'index.js'), functionName: name, timeoutMs, event });
  });
}

interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: any;
}

/** A request to a route's function with the site's key; a JSON reply is parsed. */
async function call(
  name: FunctionId,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const result = await invoke(name, apiEvent(method, path, { body, headers: { 'x-api-key': key, ...headers } }));
  const json = /json/.test(String(result.headers?.['content-type'] ?? ''));
  return {
    statusCode: result.statusCode,
    headers: result.headers ?? {},
    body: json ? JSON.parse(result.body) : result.body,
  };
}

/** A JSON-RPC message to an MCP endpoint's function, as a client sends it. */
const mcpPost = (name: FunctionId, message: object) =>
  call(name, 'POST', '/mcp', message, { accept: 'application/json, text/event-stream' });

async function expectToolsListed(name: FunctionId) {
  const listed = await mcpPost(name, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  expect(listed.statusCode).toBe(200);
  expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain('research');
}

/** Feeds a worker every message sent to its queue so far; the batch response must report no failure. */
async function work(queue: WorkerName): Promise<number> {
  const bodies = sent[queue].splice(0);
  expect(bodies.length).toBeGreaterThan(0);
  expect(await invoke(`${queue}-worker`, sqsEvent(queue, bodies), 120_000)).toEqual({ batchItemFailures: [] });
  return bodies.length;
}

describeWith(node24, 'Node 24', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cm-node24-'));
    dynamo = await startDynamo({ port: 0 });
    await ensureTable(dynamo.endpoint, TABLE_NAME);
    const store = createStore(createDocumentClient({ endpoint: dynamo.endpoint }), TABLE_NAME);
    const created = await store.sites.create({ name: 'Node 24', domain: 'shoes.example.com', locale: 'US/en' });
    key = created.api_key;
    siteId = created.site.site_id;
    const sqsUrl = await startSqs();
    // Built as `cdk synth` builds them; esbuild runs its builds in parallel.
    await Promise.all(FUNCTION_ENTRIES.map((name) => writeBundle(name, join(dir, name))));

    // The host, bundled for Node 24 with the local stack's Lambda context in it.
    const hostFile = join(dir, 'lambda-host.cjs');
    await build({
      entryPoints: [join(__dirname, '..', 'helpers', 'lambda-host.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: hostFile,
      logLevel: 'silent',
    });
    host = spawn(NODE24, [hostFile], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Only what the stack sets (and local endpoints and credentials): nothing of the test process leaks in.
      env: {
        PATH: process.env.PATH,
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_SQS: sqsUrl,
        ...Object.fromEntries(WORKERS.map((queue) => [queueUrlEnvName(queue), `${sqsUrl}/000000000000/${queue}`])),
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        POWERTOOLS_METRICS_DISABLED: 'true',
        SANDBOX_RESEARCH_MS: '0',
        OAUTH_SECRET: 'node24-oauth-secret',
      },
    });
    given(host.stdout, 'the stdout').on('data', (chunk: Buffer) => (output += chunk.toString()));
    given(host.stderr, 'the stderr').on('data', (chunk: Buffer) => (output += chunk.toString()));
    host.on('exit', (code) => {
      for (const { reject } of pending.values()) reject(new Error(`the Node 24 host exited (${code}):\n${output}`));
    });
    hostVersion = await new Promise<string>((resolve) => {
      host.on('message', (message: { ready?: string; id?: number; result?: unknown; error?: string }) => {
        if (message.ready) return resolve(message.ready);
        const waiting = given(pending.get(given(message.id, 'the id')), 'the entry');
        pending.delete(given(message.id, 'the id'));
        if (message.error) waiting.reject(new Error(`${message.error}\n${output}`));
        else waiting.resolve(message.result);
      });
    });
  }, 240_000);

  afterAll(async () => {
    host?.kill();
    await new Promise((resolve) => sqs?.close(resolve));
    await dynamo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('the bundles on Node 24', () => {
    it("run on the Node of the functions' runtime", () => {
      expect(RUNTIME.name).toBe('nodejs24.x');
      expect(hostVersion).toMatch(/^v24\./);
    });

    let articleId: string;
    let questionId: string;
    let jobId: string;

    it('discovery: health and the OpenAPI document, whole: the bundle drops no schema the contract registers (its packages are sideEffects: false)', async () => {
      expect(await call('discovery', 'GET', '/health')).toMatchObject({ statusCode: 200, body: { ok: true } });
      const { openapi, paths, components } = (await call('discovery', 'GET', '/openapi.json')).body as ReturnType<
        typeof buildOpenApi
      >;
      expect({ openapi, paths, components }).toEqual({
        openapi: '3.1.0',
        paths: buildOpenApi().paths,
        components: buildOpenApi().components,
      });
      expect(await call('discovery', 'GET', '/nowhere')).toMatchObject({
        statusCode: 404,
        body: { code: 'not_found' },
      });
    });

    it('publish: an article and a question, 201', async () => {
      const article = await call('publish', 'POST', '/articles', {
        slug: 'trail-shoes',
        title: 'Trail shoes',
        body: [{ _type: 'paragraph', text: 'Grip first.' }],
      });
      expect(article).toMatchObject({ statusCode: 201, body: { created: true, slug: 'trail-shoes' } });
      articleId = article.body.id;
      const question = await call('publish', 'POST', '/questions', {
        slug: 'how-long-do-shoes-last',
        question: 'How long do shoes last?',
        answer: [{ _type: 'paragraph', text: 'About 500 miles.' }],
        related_article_ids: [articleId],
      });
      expect(question.statusCode).toBe(201);
      questionId = question.body.id;
    });

    it('read, question-parts and visitor: 200', async () => {
      expect(await call('read', 'GET', `/articles/${articleId}`)).toMatchObject({
        statusCode: 200,
        body: { id: articleId, title: 'Trail shoes' },
      });
      expect(
        await call('question-parts', 'PUT', `/questions/${questionId}/summary`, { summary: 'Replace them yearly.' }),
      ).toMatchObject({
        statusCode: 200,
        body: { summary: 'Replace them yearly.' },
      });
      const page = await call('visitor', 'GET', `/sites/${siteId}/articles/trail-shoes`);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('Grip first.');
      // The feed and sitemaps carry their writers (the feed and sitemap packages) on Node 24 too.
      const feed = await call('site-files', 'GET', `/sites/${siteId}/feed.xml`);
      expect(feed.statusCode).toBe(200);
      expect(feed.body).toContain('<title type="html"><![CDATA[Trail shoes]]></title>');
      const index = await call('site-files', 'GET', `/sites/${siteId}/sitemap.xml`);
      expect(index.body).toContain(`/sites/${siteId}/sitemaps/listings.xml</loc>`);
    });

    it('notify takes the article down and queues a relink, which the relink worker plans and the relink-pages worker runs', async () => {
      const notified = await call('notify', 'POST', '/api/content/notify', {
        id: articleId,
        type: 'article',
        action: 'unpublished',
      });
      expect(notified).toMatchObject({ statusCode: 200, body: { ok: true, matched: true, relink: 'queued' } });
      expect(await work('relink')).toBe(1);
      expect(await work('relink-pages')).toBe(1);
      expect((await call('read', 'GET', `/questions/${questionId}`)).body.suppressed_links).toEqual([
        expect.objectContaining({ id: articleId }),
      ]);
    });

    it("the budget-warning worker takes a site's warning: a site without a webhook has it dropped, not failed", async () => {
      const warning = {
        type: 'budget.warning',
        id: `${siteId}:day:2026-11-28:080`,
        site_id: siteId,
        window: 'day',
        period: '2026-11-28',
        level_pct: 80,
        used_pct: 80,
        limit_usd: 1,
        spent_usd: 0.8,
        reserved_usd: 0,
        at: '2026-11-28T12:00:00.000Z',
      };
      expect(
        await invoke('budget-warning-worker', sqsEvent('budget-warning', [JSON.stringify(warning)]), 60_000),
      ).toEqual({ batchItemFailures: [] });
    });

    it("the indexnow worker takes a site's message: a site with nothing pending sends nothing", async () => {
      const message = JSON.stringify({ site_id: siteId });
      expect(await invoke('indexnow-worker', sqsEvent('indexnow', [message]), 60_000)).toEqual({
        batchItemFailures: [],
      });
    });

    it("the search-console worker takes a site's day: a site not connected imports nothing", async () => {
      const message = JSON.stringify({ site_id: siteId, date: '2026-11-25', state: 'final' });
      expect(await invoke('search-console-worker', sqsEvent('search-console', [message]), 60_000)).toEqual({
        batchItemFailures: [],
      });
    });

    it('the tools: the listing and each tool function, 200 on the sandbox', async () => {
      expect((await call('tools', 'GET', '/v1/tools')).body.map((t: { name: string }) => t.name)).toContain(
        'serp_landscape',
      );
      const topic = await call('db-insert', 'POST', '/v1/tools/db_insert', {
        table: 'cm_topics',
        row: { name: 'Trail shoes' },
      });
      expect(topic.statusCode).toBe(200);
      const topicId: number = topic.body.row.id;
      const tool = (fn: FunctionId, name: string, body: unknown) => call(fn, 'POST', `/v1/tools/${name}`, body);
      expect(await tool('db-select', 'db_select', { table: 'cm_topics' })).toMatchObject({
        statusCode: 200,
        body: { rows: [{ id: topicId }] },
      });
      expect(
        await tool('get-keywords', 'get_keywords', {
          topic_id: topicId,
          seeds: ['trail shoes', 'trail running shoes'],
        }),
      ).toMatchObject({
        statusCode: 200,
        body: { data_source: 'sandbox' },
      });
      expect((await tool('serp-landscape', 'serp_landscape', { topic_id: topicId, depth: 'list' })).statusCode).toBe(
        200,
      );
      expect((await tool('serp-keyword-refresh', 'serp_keyword_refresh', { keyword: 'trail shoes' })).statusCode).toBe(
        200,
      );
      expect((await tool('serp-backlinks', 'serp_backlinks', { scope: 'site' })).statusCode).toBe(200);
      expect((await tool('recall', 'recall', { query: 'trail shoes' })).statusCode).toBe(200);
      expect(await tool('search-traffic', 'search_traffic', {})).toMatchObject({
        statusCode: 200,
        body: { connected: false },
      });
      expect((await tool('db-delete', 'db_delete', { table: 'cm_topics', id: topicId })).statusCode).toBe(200);
    });

    it('add-competitor queues monitoring, which the monitor worker runs; the schedule plans it again, and the plan queues it', async () => {
      expect(
        await call('add-competitor', 'POST', '/v1/tools/add_competitor', { domain: 'rival.example.com' }),
      ).toMatchObject({ statusCode: 200 });
      await work('monitor');
      const scheduled = await invoke('monitor-schedule', scheduledEvent(new Date()), 300_000);
      expect(scheduled).toEqual({ sites: 1, plans: 1 }); // one site, in one block
      expect(await work('monitor-plan')).toBe(1);
      expect(await work('monitor')).toBe(1); // the site's run, which finds its domains monitored today already
    });

    it("track-rankings queues a topic's first check: the rank worker posts it, the rank-collect worker stores its rows; the schedule plans the site's checks again, which find them done", async () => {
      const tool = (fn: FunctionId, name: string, body: unknown) => call(fn, 'POST', `/v1/tools/${name}`, body);
      const topicId: number = (await tool('db-insert', 'db_insert', { table: 'cm_topics', row: { name: 'Ranks' } }))
        .body.row.id;
      expect(
        (await tool('get-keywords', 'get_keywords', { topic_id: topicId, seeds: ['gravel bike', 'bike lights'] }))
          .statusCode,
      ).toBe(200);
      expect(await tool('track-rankings', 'track_rankings', { topic_id: topicId, cadence: 'daily' })).toMatchObject({
        statusCode: 200,
        body: { first_check: { queued: 2, deferred: 0 } },
      });
      expect(await work('rank')).toBe(1);
      expect(await work('rank-collect')).toBe(1);
      const history = await tool('serp-landscape', 'serp_landscape', { topic_id: topicId, history_days: 1 });
      expect(history.body.history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 2, failed: [] });
      expect(await invoke('monitor-schedule', scheduledEvent(new Date()), 300_000)).toEqual({ sites: 1, plans: 1 });
      expect(await work('monitor-plan')).toBe(1);
      expect(await work('monitor')).toBe(1);
      expect(await work('rank')).toBe(1); // the site's checks of today: claimed already, nothing posted
      expect(sent['rank-collect']).toEqual([]);
    });

    it('research queues a job, the research worker runs it, and jobs answers it succeeded', async () => {
      const queued = await call('research', 'POST', '/v1/tools/research', {
        mode: 'web',
        seed: 'how long do trail shoes last',
        wait_ms: 0,
      });
      expect(queued).toMatchObject({ statusCode: 200, body: { status: 'queued', data_source: 'sandbox' } });
      jobId = queued.body.job_id;
      await work('research');
      expect(await call('jobs', 'GET', `/v1/jobs/${jobId}`)).toMatchObject({
        statusCode: 200,
        body: { job_id: jobId, status: 'succeeded' },
      });
      // The minute's sweep finds nothing lapsed, and no job waiting: the job ended and freed its place.
      expect(await invoke('research-sweep', scheduledEvent(new Date()), 60_000)).toEqual({
        expired: 0,
        freed: 0,
        admitted: 0,
      });
    });

    it('the page schedule finds no change due, and applies none', async () => {
      expect(await invoke('page-schedule', scheduledEvent(new Date()), 60_000)).toEqual({ applied: 0, replaced: 0 });
    });

    it('usage, dashboard and mcp: 200', async () => {
      expect(await call('usage', 'GET', '/v1/usage')).toMatchObject({
        statusCode: 200,
        body: { by_tool: expect.any(Array) },
      });
      const dashboard = await call('dashboard', 'GET', '/dashboard');
      expect(dashboard.statusCode).toBe(200);
      expect(dashboard.body).toMatch(/<script[^>]+src="\/dashboard\/assets\//);
      await expectToolsListed('mcp');
      // The server is the bundle's server.js, and the Apps' HTML is the bundling's mcp-apps/ beside it.
      const app = await mcpPost('mcp', {
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/read',
        params: { uri: MCP_APPS.keyword_landscape.uri },
      });
      expect(app.statusCode).toBe(200);
      expect(app.body.result.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
      expect(app.body.result.contents[0].text).toMatch(/^<!doctype html>/i);
    });

    it("mcp-stream: its response-streaming handler answers through Lambda's stream, progress first, then the result", async () => {
      await expectToolsListed('mcp-stream');
      const progress = await invoke(
        'mcp-stream',
        apiEvent('POST', '/mcp', {
          body: {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'get_job', arguments: { job_id: 'job_unknown', wait_ms: 1 }, _meta: { progressToken: 7 } },
          },
          headers: {
            'x-api-key': key,
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
        }),
      );
      expect(progress.statusCode).toBe(200);
      expect(progress.headers['content-type']).toBe('text/event-stream');
      const events = String(progress.body)
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)));
      expect(events[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7 } });
      expect(events.at(-1)).toMatchObject({ id: 2, result: { isError: true } });
      const refused = await invoke('mcp-stream', apiEvent('POST', '/mcp', { body: {}, headers: {} }));
      expect(refused).toMatchObject({ statusCode: 401 });
    });

    it('oauth: the authorization server (oidc-provider, bundled to CommonJS) answers its metadata and registers a client', async () => {
      const metadata = await call('oauth', 'GET', '/.well-known/oauth-authorization-server');
      expect(metadata).toMatchObject({
        statusCode: 200,
        body: { issuer: 'https://api.example.com', code_challenge_methods_supported: ['S256'] },
      });
      const registered = await call('oauth', 'POST', '/oauth/register', {
        redirect_uris: ['https://host.example/cb'],
        token_endpoint_auth_method: 'none',
      });
      expect(registered).toMatchObject({ statusCode: 201, body: { client_id: expect.any(String) } });
    });

    it('invoked every function of the stack', () => {
      expect([...invoked].sort()).toEqual([...FUNCTION_ENTRIES].sort());
    });
  });
});
