import { request } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateRule } from '@cm/contract';
import { startLocalStack, type LocalStack } from '@cm/local';
import { forgetKeyLookups, resetServices } from '@cm/runtime';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { apiClient, type Reply } from './client';
import { expectDeclaredReply, isJsonType } from './contract';
import { fileScoped } from './file-scoped';

export type { Reply } from './client';

export interface TestStack {
  stack: LocalStack;
  /** The store on the stack's table, for what a test sets up or checks beneath the API. */
  store: Store;
  /** The store's document client, for items a test reads or writes beneath the store. */
  db: DynamoDBDocumentClient;
  url: string;
  /** The demo site's key and id. */
  key: string;
  siteId: number;
  /**
   * A JSON request with the demo key (or `key`); `body` as a string is sent as is. The reply is checked
   * against what the route table declares for it (test/helpers/contract.ts): a mismatch throws.
   */
  call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  /** A second site with its own key. */
  newSite(name?: string, options?: { domain?: string; locale?: string }): Promise<{ siteId: number; key: string }>;
  stop(): Promise<void>;
}

/**
 * The test stacks' DynamoDB request timeout: the production 2 s is a setting for a DynamoDB that stops
 * answering, and on a busy machine the embedded one can take that long for real (tests of the timeout
 * itself set the production value).
 */
export const TEST_REQUEST_TIMEOUT_MS = 30_000;

/** Sets environment variables; the function it returns puts back what they were. */
function setEnv(env: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/**
 * Runs `run` with `env` set for the stack's handlers (their config read again), then waits for the
 * work it queued and puts the environment back: a test of other timings in a stack that shares them.
 */
export async function withStackEnv(t: TestStack, env: Record<string, string>, run: () => Promise<void>) {
  const restore = setEnv(env);
  resetServices();
  try {
    await run();
  } finally {
    await t.stack.drain();
    restore();
    resetServices();
  }
}

/**
 * Checks a key (the demo key unless told) now, so that a count of requests that follows does not take in
 * its reads: the container keeps a key's check 5 s, as a warm Lambda does, and on a busy machine a test's
 * earlier call may be longer ago than that.
 */
export async function warmKeyCheck(t: TestStack, key: string = t.key): Promise<void> {
  // Looked up afresh, so it is kept a whole KEY_CACHE_MS from now: a hit on an older lookup could
  // expire before the counted request, which would then look its key up (two requests more).
  forgetKeyLookups();
  expect((await t.call('GET', '/v1/budget', undefined, { key })).status).toBe(200);
}

/**
 * The DynamoDB requests `run` makes on its request path, and its result: the queues have what it sends
 * until it is counted (their workers share the counted engine, and on a slower one could start within
 * the count), then deliver it, and the stack is drained.
 */
export async function requestPathCount<T>(
  t: TestStack,
  run: () => Promise<T>,
): Promise<{ requests: number; result: T }> {
  await warmKeyCheck(t);
  const queues = Object.values(t.stack.queues);
  for (const queue of queues) queue.pause();
  let counted: { requests: number; result: T };
  try {
    const before = t.stack.dynamo.requests();
    const result = await run();
    counted = { requests: t.stack.dynamo.requests() - before, result };
  } finally {
    for (const queue of queues) queue.resume();
  }
  await t.stack.drain();
  return counted;
}

/** The test file's local stack (`startTestStack(options)`), started before its tests and stopped after them. */
export const useTestStack = (options: Parameters<typeof startTestStack>[0] = {}): TestStack =>
  fileScoped(
    () => startTestStack(options),
    (t) => t.stop(),
  );

/**
 * The local stack in memory on free ports, as `npm start --memory` runs it, with `env` set for its
 * handlers until `stop()`. Its schedule and sweep run only when a test calls them: on their timers,
 * their DynamoDB requests would land among the ones a test counts, whenever the minute turned.
 */
export async function startTestStack(
  options: { env?: Record<string, string>; rateRules?: readonly RateRule[] } = {},
): Promise<TestStack> {
  // IndexNow's debounce window off: a test holds the indexnow queue instead, and a stop does not wait for it.
  const restoreEnv = setEnv({
    DYNAMODB_REQUEST_TIMEOUT_MS: String(TEST_REQUEST_TIMEOUT_MS),
    INDEXNOW_DELAY_SECONDS: '0',
    ...options.env,
  });
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      memory: true,
      port: 0,
      dynamoPort: 0,
      tableName: 'content-test',
      demoSite: true,
      schedules: false,
      // No rate rules unless a test asks: tests send bursts from one address that WAF would count.
      rateRules: options.rateRules ?? [],
    });
  } catch (error) {
    restoreEnv();
    throw error;
  }
  const db = createDocumentClient({
    endpoint: stack.dynamo.endpoint,
    requestTimeoutMs: TEST_REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: TEST_REQUEST_TIMEOUT_MS,
  });
  const store = createStore(db, stack.tableName);
  const key = stack.demo!.api_key;
  return {
    stack,
    store,
    db,
    url: stack.url,
    key,
    siteId: stack.demo!.site_id,
    async call(method, path, body, options = {}) {
      const apiKey = options.key === undefined ? key : options.key;
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (apiKey) headers['x-api-key'] = apiKey;
      if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      const res = await fetch(`${stack.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      const contentType = res.headers.get('content-type');
      if (isJsonType(contentType)) parsed = JSON.parse(text);
      expectDeclaredReply(method, new URL(path, stack.url).pathname, res.status, contentType, parsed);
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async newSite(name = 'Other site', options = {}) {
      const created = await store.sites.create({
        name,
        domain: options.domain ?? 'other.example.com',
        locale: options.locale,
      });
      return { siteId: created.site.site_id, key: created.api_key };
    },
    async stop() {
      await stack.stop();
      restoreEnv();
    },
  };
}

export const article = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  title: `Title of ${slug}`,
  body: [{ _type: 'paragraph', text: `Body of ${slug}` }],
  ...extra,
});

export const question = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  question: `What is ${slug}?`,
  answer: [{ _type: 'paragraph', text: `Answer about ${slug}` }],
  ...extra,
});

/** Publishes `article(slug, extra)` through the typed client (./client.ts): a non-2xx reply throws. */
export const publishArticle = (t: TestStack, slug: string, extra: Record<string, unknown> = {}) =>
  apiClient(t).route('POST /articles', { body: article(slug, extra) });
/** Publishes `question(slug, extra)` through the typed client: a non-2xx reply throws. */
export const publishQuestion = (t: TestStack, slug: string, extra: Record<string, unknown> = {}) =>
  apiClient(t).route('POST /questions', { body: question(slug, extra) });

/**
 * A new site on `t` and calls with its key: `call` any route, `tool` a research tool; `client` the same
 * typed by the route and tool declarations (./client.ts).
 */
export async function siteClient(t: TestStack, name: string, options: { domain?: string; locale?: string } = {}) {
  const created = await t.newSite(name, options);
  const call = <T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    t.call<T>(method, path, body, { key: created.key, headers });
  const tool = <T = any>(toolName: string, body: unknown) => call<T>('POST', `/v1/tools/${toolName}`, body);
  return { ...created, call, tool, client: apiClient(t, created.key) };
}
export type SiteClient = Awaited<ReturnType<typeof siteClient>>;

/**
 * A GET with a Host header of the test's choosing (fetch will not send one), as a request at a site's own
 * domain reaches the local server.
 */
export const getAtHost = (t: TestStack, host: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
    (resolve, reject) => {
      const url = new URL(t.url);
      const req = request({ host: '127.0.0.1', port: url.port, path, headers: { ...headers, host } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end();
    },
  );
