import * as dns from 'node:dns';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { MCP_OAUTH_PATH, MCP_PATH, ROUTES, routeKey, type Route } from '@cm/contract';
import { replyMismatches } from '../helpers/contract';
import {
  BAD_ESCAPES,
  bodiesOf,
  CONTENT_TYPES,
  ODD_SEGMENTS,
  arbitraryOf,
  percentEncode,
  mutationOf,
  sendRaw,
  type JsonSchema,
  type RawCall,
} from '../helpers/fuzz';
import { article, question, startTestStack, type TestStack } from '../helpers/local';

/*
 * Requests generated from the route table's zod schemas (as JSON Schema) with fast-check, across every
 * route: bodies valid and mutated, queries, path parameters in odd encodings, the key present, missing
 * or wrong, and MCP JSON-RPC calls of every tool with arguments from its own input schema. Not one may
 * be a 5xx, every error must be in the one error shape, and pages published before stay as they were.
 */

const REQUESTS = 10_000;
const SEED = 20_261_123;
/** Requests in flight at once. */
const PARALLEL = 8;

let t: TestStack;
beforeAll(async () => {
  // Research jobs end at once, so the queued ones never pile up behind the fuzz.
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '0' } });
  // Offline: url research looks up generated host names; none resolves (ENOTFOUND as the resolver says it).
  jest
    .spyOn(dns.promises, 'lookup')
    .mockImplementation(() => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })));
}, 60_000);
afterAll(async () => {
  jest.restoreAllMocks();
  await t.stop();
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** No call waits: where `schema` has wait_ms, one that is a number (or left to its default) is 0. */
const noWait = (schema: JsonSchema) => (value: unknown) =>
  isObject(value) &&
  isObject(schema.properties) &&
  'wait_ms' in schema.properties &&
  (value.wait_ms === undefined || typeof value.wait_ms === 'number')
    ? { ...value, wait_ms: 0 }
    : value;

const schemaOf = (schema: z.ZodMiniType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** Query strings: the query schema's values (valid or mutated), each written plainly or percent-encoded oddly. */
function queriesOf(route: Route): fc.Arbitrary<string> {
  if (!route.query) return fc.oneof(fc.constant(''), fc.constantFrom('?', '?a=1', `?${BAD_ESCAPES.join('&')}`));
  const schema = schemaOf(route.query);
  const values = arbitraryOf(schema).map(noWait(schema));
  const encoded = fc.oneof(
    fc.string({ maxLength: 12 }).map(percentEncode),
    fc.constantFrom(...BAD_ESCAPES, ...ODD_SEGMENTS, '-1', '1e999', ''),
  );
  return fc.oneof(values, values.chain(mutationOf)).chain((query) =>
    fc.tuple(fc.array(encoded, { maxLength: 2 }), fc.boolean()).map(([odd, repeat]) => {
      const pairs = isObject(query)
        ? Object.entries(query).map(([k, v]) => `${k}=${percentEncode(typeof v === 'string' ? v : JSON.stringify(v))}`)
        : [];
      const oddPairs = odd.map((v, i) => `${Object.keys(isObject(query) ? query : {})[i] ?? 'limit'}=${v}`);
      const all = [...pairs, ...oddPairs, ...(repeat && pairs[0] ? [pairs[0]] : [])];
      return all.length > 0 ? `?${all.join('&')}` : '';
    }),
  );
}

/** A value for a path parameter: an id that exists (GET only), a generated text, a bad escape or an odd segment. */
function paramsOf(route: Route, known: Record<string, string[]>): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const value = (name: string) =>
    fc.oneof(
      ...(route.method === 'GET' && known[name]?.length ? [fc.constantFrom(...known[name])] : []),
      fc.string({ minLength: 1, maxLength: 16 }).map(percentEncode),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).map(percentEncode),
      fc.constantFrom(...BAD_ESCAPES, ...ODD_SEGMENTS),
      fc.nat(5000).map((n) => 'a'.repeat(n)),
    );
  return fc.tuple(...names.map(value)).map((values) => {
    let i = 0;
    return route.path.replace(/\{\w+\}/g, () => values[i++]!);
  });
}

/** The key as sent: the site's, none, another that does not exist, or in another header's form. */
const keys = (key: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant<Record<string, string>>({ 'X-API-Key': key }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Record<string, string>>(
        {},
        { 'X-API-Key': 'cm_wrong_key' },
        { 'X-API-Key': '' },
        { 'X-API-Key': `${key}x` },
        { 'X-API-Key': key.toUpperCase() },
        { Authorization: `Bearer ${key}` },
        { Authorization: 'Bearer ' },
        { 'X-API-Key': 'x'.repeat(4000) },
      ),
    },
  );

/** The MCP endpoints: the one that takes a key, and the one that advertises OAuth. */
const MCP_PATHS: readonly string[] = [MCP_PATH, MCP_OAUTH_PATH];

/** JSON-RPC messages for POST /mcp: tools/call of every tool (arguments from its inputSchema, valid or mutated), other methods, batches. */
function mcpBodies(tools: { name: string; inputSchema: JsonSchema }[]): fc.Arbitrary<string> {
  const id = fc.oneof(fc.nat(), fc.string({ maxLength: 8 }), fc.constant(null));
  const call = fc.oneof(
    ...tools.map((tool) =>
      fc.record({
        name: fc.constant(tool.name),
        arguments: bodiesOf(tool.inputSchema, noWait(tool.inputSchema)).map(parsedOrText),
      }),
    ),
  );
  const message = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.constant('tools/call'), params: call }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id,
        method: fc.oneof(
          fc.constantFrom(
            'tools/list',
            'initialize',
            'ping',
            'resources/list',
            'prompts/get',
            'notifications/initialized',
          ),
          fc.string(),
        ),
        params: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        jsonrpc: fc.constant('2.0'),
        id,
        method: fc.constant('tools/call'),
        params: fc.record({ name: fc.string(), arguments: fc.object() }),
      }),
    },
  );
  return fc.oneof(
    { weight: 8, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '[]', 'null', '{"jsonrpc":"2.0"}', 'not json') },
  );
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Requests for one route: its path with parameters, a query, a body of its schema, a key, and sometimes another content type. */
function callsOf(
  route: Route,
  key: string,
  known: Record<string, string[]>,
  mcpTools: { name: string; inputSchema: JsonSchema }[],
): fc.Arbitrary<RawCall> {
  const bodies =
    MCP_PATHS.includes(route.path) && route.method === 'POST'
      ? mcpBodies(mcpTools)
      : route.body
        ? bodiesOf(schemaOf(route.body), noWait(schemaOf(route.body)))
        : undefined;
  const extraHeaders = MCP_PATHS.includes(route.path)
    ? fc.oneof(
        {
          weight: 8,
          arbitrary: fc.constant<Record<string, string>>({ Accept: 'application/json, text/event-stream' }),
        },
        {
          weight: 2,
          arbitrary: fc.constantFrom<Record<string, string>>(
            {},
            { Accept: 'text/html' },
            { Accept: 'application/json, text/event-stream', Origin: 'https://evil.example' },
            { Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '1999-01-01' },
          ),
        },
      )
    : fc.constant<Record<string, string>>({});
  return fc
    .record({
      path: paramsOf(route, known),
      query: queriesOf(route),
      body: bodies ?? fc.constant(undefined),
      key: keys(key),
      extra: extraHeaders,
      contentType: fc.oneof(
        { weight: 9, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
    })
    .map(({ path, query, body, key: keyHeaders, extra, contentType }) => ({
      method: route.method,
      path: path + query,
      headers: { ...keyHeaders, ...extra },
      ...(body === undefined ? {} : { body: Buffer.from(body, 'utf8'), contentType }),
    }));
}

/**
 * What the MCP SDK itself refuses (a wrong Accept, a message that is not JSON-RPC) is a JSON-RPC error, as
 * docs/api.md#mcp says, on both MCP endpoints; the v2 SDK answers it with the message's id when it has one.
 */
const JsonRpcError = z.object({
  jsonrpc: z.literal('2.0'),
  error: z.object({ code: z.int(), message: z.string() }),
  id: z.union([z.string(), z.number(), z.null()]),
});
const isMcpRefusal = (route: string, status: number, body: unknown) =>
  MCP_PATHS.some((path) => route === `POST ${path}`) && status >= 400 && JsonRpcError.safeParse(body).success;

/** Pages published before the fuzz, read back whole. */
async function publishWitnesses() {
  const witnesses: { path: string; record: unknown }[] = [];
  for (let i = 0; i < 4; i++) {
    const a = await t.call(
      'POST',
      '/articles',
      article(`witness-article-${i}`, {
        excerpt: `Excerpt ${i}`,
        keywords: ['witness'],
        canonical_url: 'https://example.com/a',
      }),
    );
    const q = await t.call(
      'POST',
      '/questions',
      question(`witness-question-${i}`, {
        sources: [{ id: 'src-1', title: 'S', url: 'https://example.com/s', accessed_at: '2026-01-01' }],
      }),
    );
    for (const path of [`/articles/${a.body.id}`, `/questions/${q.body.id}`])
      witnesses.push({ path, record: (await t.call('GET', path)).body });
  }
  return witnesses;
}

it(`answers ${REQUESTS} requests generated from the route table's schemas with no 5xx, every error in the one shape, and stored pages unchanged`, async () => {
  const witnesses = await publishWitnesses();
  const known = {
    id: witnesses.map((w) => w.path.split('/')[2]!),
    site_id: [String(t.siteId)],
    slug: ['witness-article-0', 'witness-question-0'],
    file: ['index.js', 'x'],
    job_id: ['job_x'],
    name: ['research', 'db_select'],
  };
  const mcpTools = (
    await t.call(
      'POST',
      MCP_PATH,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { headers: { accept: 'application/json, text/event-stream' } },
    )
  ).body.result.tools as { name: string; inputSchema: JsonSchema }[];
  expect(mcpTools.length).toBeGreaterThan(10);

  // Every route the same share of the requests.
  const perRoute = Math.ceil(REQUESTS / ROUTES.length);
  const calls = ROUTES.flatMap((route, i) =>
    fc
      .sample(callsOf(route, t.key, known, mcpTools), { numRuns: perRoute, seed: SEED + i })
      .map((call) => ({ ...call, route: routeKey(route) })),
  );
  expect(calls.length).toBeGreaterThanOrEqual(REQUESTS);

  const statuses = new Map<number, number>();
  const failures = new Map<string, string>();
  let serverErrors = 0;
  let offShape = 0;
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const call = calls[next++]!;
      const reply = await sendRaw(t.url, call);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      const mismatches = isMcpRefusal(call.route, reply.status, reply.body)
        ? []
        : replyMismatches(
            call.method,
            call.path.split('?')[0]!,
            reply.status,
            reply.headers['content-type'] ?? null,
            reply.body,
          );
      if (reply.status >= 500) serverErrors++;
      else if (mismatches.length === 0) continue;
      else if (reply.status >= 400) offShape++;
      // One example of each kind of failure: its route, status and what differs.
      const kind = `${call.route} ${reply.status} ${mismatches[0]?.replace(/"[^"]*"/g, '""') ?? ''}`;
      if (!failures.has(kind)) {
        const body = call.body?.toString('utf8').slice(0, 300) ?? '';
        failures.set(
          kind,
          `${call.method} ${call.path.slice(0, 200)} ${body} → ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}: ${mismatches.join('; ')}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  await t.stack.drain();

  const changed: string[] = [];
  for (const w of witnesses)
    if (JSON.stringify((await t.call('GET', w.path)).body) !== JSON.stringify(w.record)) changed.push(w.path);

  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
  console.log(
    `reliability: fuzz ${calls.length} requests over ${ROUTES.length} routes, ${serverErrors} 5xx, ${offShape} off-shape errors, ${changed.length}/${witnesses.length} stored pages changed (${byStatus.join(' ')})`,
  );
  expect([...failures.values()]).toEqual([]);
  expect(changed).toEqual([]);
  // Generated valid requests got through too, not only refusals.
  expect([...statuses.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
}, 600_000);
