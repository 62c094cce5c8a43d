import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import {
  GOOGLE_SEARCH_CONSOLE,
  googleSearchConsole,
  Meter,
  ProviderError,
  QUERY_SPACING_MS,
  SEARCH_ANALYTICS_QUERY,
  serviceAccountKey,
  type GoogleSearchConsoleOptions,
  type SearchConsoleContext,
} from '@cm/providers';
import { fileScoped } from '../helpers/file-scoped';
import { given } from '../helpers/client';
import { startTlsSite, TEST_CA } from '../helpers/tls-site';

/*
 * The Google Search Console client on recorded answers (test/fixtures/google, written from the
 * documented shapes) replayed by a loopback HTTPS stand-in of Google's token endpoint and API.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'google');
const recorded = (name: string): string => readFileSync(join(FIXTURES, `${name}.json`), 'utf8');

interface Answer {
  status: number;
  body: string;
}
interface Received {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** Answers by path, or by path and a query's dimensions (the last one repeats), and every request received. */
const answers = new Map<string, Answer[]>();
const received: Received[] = [];
const answer = (path: string, ...queue: Answer[]) => answers.set(path, queue);
const file = (name: string, status = 200): Answer => ({ status, body: recorded(name) });
/** The key of a query's answers by its dimensions. */
const byDimensions = (path: string, body: string) => {
  const dimensions: unknown = body ? JSON.parse(body).dimensions : undefined;
  return Array.isArray(dimensions) ? `${path}#${dimensions.join(',')}` : path;
};

const google = fileScoped(
  () =>
    startTlsSite('127.0.0.3', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({
          path,
          authorization: req.headers.authorization,
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const body = Buffer.concat(chunks).toString('utf8');
        const queue = answers.get(path === QUERY_PATH ? byDimensions(path, body) : path) ?? answers.get(path) ?? [];
        const next = queue.length > 1 ? queue.shift() : queue[0];
        // Status 0: Google stopped answering; the request is read and never answered.
        if (next?.status === 0) return;
        res.writeHead(next?.status ?? 404, { 'content-type': 'application/json' }).end(next?.body ?? '{}');
      });
    }),
  (site) => site.close(),
);

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

const PROPERTY = 'sc-domain:example.com';
const QUERY_PATH = `/webmasters/v3/sites/${encodeURIComponent(PROPERTY)}/searchAnalytics/query`;
const CONTEXT: SearchConsoleContext = { siteDomain: 'example.com', pages: [] };

/** Each test its own service account: tokens are kept per account for the life of the process. */
let accounts = 0;
const keyOf = () =>
  serviceAccountKey({
    type: 'service_account',
    client_email: `importer-${++accounts}@content-api.iam.gserviceaccount.com`,
    private_key: privateKey,
    token_uri: 'https://oauth2.googleapis.com/token',
  });

/** The client as a test talks to it: Google's hosts are the loopback stand-in, trusted through the test CA. */
function client(key = keyOf(), options: GoogleSearchConsoleOptions = {}) {
  const origin = `https://public.test:${google.port}`;
  return googleSearchConsole(key, {
    allowLoopback: true,
    ca: TEST_CA,
    resolve: async (host) => (host === 'public.test' ? ['127.0.0.3'] : []),
    tokenUrl: `${origin}/token`,
    apiBaseUrl: `${origin}/webmasters/v3`,
    // The spacing of queries is its own test's: the others do not wait it out.
    pause: async () => {},
    ...options,
  });
}

const queries = () => received.filter((r) => r.path === QUERY_PATH).map((r) => JSON.parse(r.body));
/** Each of a day's three reads answered (`queries`: the (page, query) read's answers). */
const answerDay = (...queries: Answer[]) => {
  answer(`${QUERY_PATH}#device,country`, file('query.totals.ok'));
  answer(`${QUERY_PATH}#page,device`, file('query.pages.ok'));
  answer(`${QUERY_PATH}#page,query`, ...(queries.length > 0 ? queries : [file('query.queries.ok')]));
};
const tokenRequests = () => received.filter((r) => r.path === '/token');

/** The ProviderError a call fails with. */
async function failure(call: Promise<unknown>): Promise<ProviderError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

beforeEach(() => {
  answers.clear();
  received.length = 0;
  answer('/token', file('token.ok'));
});

it('signs a JWT bearer assertion for the service account and keeps the token until a minute before it expires', async () => {
  answerDay();
  let now = Date.parse('2026-11-27T10:00:00Z');
  const key = keyOf();
  const provider = client(key, { now: () => now });
  expect(provider.serviceAccount).toBe(key.client_email);

  await provider.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter());
  const [exchange] = tokenRequests();
  expect(exchange?.contentType).toBe('application/x-www-form-urlencoded');
  const form = new URLSearchParams(given(exchange, 'the token request').body);
  expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  const assertion = given(form.get('assertion'), 'the assertion');
  expect(decodeProtectedHeader(assertion)).toEqual({ alg: 'RS256', typ: 'JWT' });
  // Signed with the account's key: its public half verifies it.
  const { payload } = await jwtVerify(assertion, await importSPKI(publicKey, 'RS256'), {
    issuer: key.client_email,
    audience: `https://public.test:${google.port}/token`,
    currentDate: new Date(now),
  });
  expect(payload.scope).toBe('https://www.googleapis.com/auth/webmasters.readonly');
  expect(payload.iat).toBe(now / 1000);
  expect(given(payload.exp, 'exp') - given(payload.iat, 'iat')).toBe(3600);
  expect(received.find((r) => r.path === QUERY_PATH)?.authorization).toBe(
    `Bearer ${JSON.parse(recorded('token.ok')).access_token}`,
  );

  // Kept: another day, 58 minutes later, asks for no token; past 3599 − 60 s it does.
  now += 58 * 60_000;
  await provider.dayRows(PROPERTY, '2026-11-25', 'final', CONTEXT, new Meter());
  expect(tokenRequests()).toHaveLength(1);
  now += 60_000;
  await provider.dayRows(PROPERTY, '2026-11-26', 'final', CONTEXT, new Meter());
  expect(tokenRequests()).toHaveLength(2);
});

it('reads a day three ways, page after page of 25,000 rows until a short one, and names each row as the interface does', async () => {
  const ok = JSON.parse(recorded('query.queries.ok'));
  const template = ok.rows[0];
  const full = Array.from({ length: 25_000 }, (_, i) => ({ ...template, keys: [template.keys[0], `query ${i}`] }));
  answerDay(
    { status: 200, body: JSON.stringify({ rows: full, responseAggregationType: 'byPage' }) },
    file('query.queries.ok'),
  );
  const meter = new Meter();

  const {
    totals,
    pages,
    queries: rows,
    calls,
  } = await client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, meter);

  expect(calls).toBe(4);
  const base = { startDate: '2026-11-24', endDate: '2026-11-24', type: 'web', dataState: 'final', rowLimit: 25_000 };
  // The totals and pages without the query (so they count the searches Google anonymises), then the (page, query) rows.
  expect(queries()).toEqual([
    { ...base, dimensions: ['device', 'country'], aggregationType: 'byProperty', startRow: 0 },
    { ...base, dimensions: ['page', 'device'], aggregationType: 'byPage', startRow: 0 },
    { ...base, dimensions: ['page', 'query'], aggregationType: 'byPage', startRow: 0 },
    { ...base, dimensions: ['page', 'query'], aggregationType: 'byPage', startRow: 25_000 },
  ]);
  expect(meter.calls).toEqual(
    Array(4).fill({ provider: GOOGLE_SEARCH_CONSOLE, endpoint: SEARCH_ANALYTICS_QUERY, cost_usd: 0 }),
  );
  expect(totals).toEqual([
    { device: 'desktop', country: 'usa', clicks: 15, impressions: 400, position: 4.4 },
    { device: 'mobile', country: 'gbr', clicks: 4, impressions: 131, position: 6.4 },
    { device: 'tablet', country: 'deu', clicks: 0, impressions: 9, position: 17.2 },
  ]);
  expect(pages).toEqual([
    { page: 'https://example.com/running-shoes', device: 'desktop', clicks: 15, impressions: 402, position: 4.5 },
    expect.objectContaining({ device: 'mobile', clicks: 4 }),
    expect.objectContaining({ page: 'https://example.com/trail-shoes', device: 'tablet' }),
  ]);
  expect(rows).toHaveLength(25_002);
  expect(rows[24_999]?.query).toBe('query 24999');
  expect(rows.slice(25_000)).toEqual([
    {
      page: 'https://example.com/running-shoes',
      query: 'best running shoes',
      clicks: 15,
      impressions: 435,
      position: 4.62,
    },
    expect.objectContaining({ page: 'https://example.com/trail-shoes', query: 'trail shoes for mud', clicks: 0 }),
  ]);
});

it('asks fresh days with dataState all, and a day without rows (its totals read empty) is one call', async () => {
  answer(QUERY_PATH, file('query.empty'));
  const day = await client().dayRows(PROPERTY, '2026-11-29', 'fresh', CONTEXT, new Meter());
  expect(day).toEqual({ totals: [], pages: [], queries: [], calls: 1 });
  expect(queries()).toEqual([expect.objectContaining({ dataState: 'all', startRow: 0 })]);
});

it('holds each query 250 ms at least, answered or refused, so 5 workers stay within 1,200 queries a minute', async () => {
  const pauses: number[] = [];
  let clock = 1_000;
  const provider = client(keyOf(), {
    now: () => clock,
    pause: async (ms) => {
      pauses.push(ms);
      clock += ms;
    },
  });
  answer(QUERY_PATH, file('query.empty'));
  await provider.dayRows(PROPERTY, '2026-11-29', 'final', CONTEXT, new Meter());
  answer(QUERY_PATH, file('query.429', 429));
  await failure(provider.dayRows(PROPERTY, '2026-11-29', 'final', CONTEXT, new Meter()));
  expect(pauses).toEqual([QUERY_SPACING_MS, QUERY_SPACING_MS]);
  expect(QUERY_SPACING_MS).toBe(250);
});

it('refuses a property the account may not read, for good, naming the account and what the owner must do', async () => {
  answer(QUERY_PATH, file('query.403', 403));
  const key = keyOf();
  const error = await failure(client(key).dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()));
  expect(error).toMatchObject({ provider: GOOGLE_SEARCH_CONSOLE, retryable: false, code: 403 });
  expect(error.message).toContain(`the property's owner must add ${key.client_email} as a user of the property`);
  expect(error.message).toContain("User does not have sufficient permission for site 'sc-domain:example.com'");
});

it('forgets a token Google no longer takes (401): the next call asks for another', async () => {
  answer(QUERY_PATH, {
    status: 401,
    body: '{"error":{"code":401,"message":"Request had invalid authentication credentials."}}',
  });
  const provider = client();
  const error = await failure(provider.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()));
  expect(error).toMatchObject({ retryable: false, code: 401 });
  answerDay();
  await provider.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter());
  expect(tokenRequests()).toHaveLength(2);
});

it('fails an exhausted quota (429) or a 5xx as worth retrying, and another 4xx for good', async () => {
  const provider = client();
  const dayRows = () => provider.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter());
  answer(QUERY_PATH, file('query.429', 429));
  const quota = await failure(dayRows());
  expect(quota).toMatchObject({ retryable: true, code: 429 });
  expect(quota.message).toContain('Search Analytics load quota exceeded.');
  answer(QUERY_PATH, file('query.500', 500));
  expect(await failure(dayRows())).toMatchObject({ retryable: true, code: 500 });
  answer(QUERY_PATH, { status: 400, body: 'not json' });
  expect(await failure(dayRows())).toMatchObject({
    retryable: false,
    code: 400,
    message: `${SEARCH_ANALYTICS_QUERY}: HTTP 400 HTTP 400`,
  });
});

it('refuses an answer not in the documented shape, saying where', async () => {
  answer(QUERY_PATH, file('query.malformed'));
  const error = await failure(client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()));
  expect(error).toMatchObject({ retryable: true });
  expect(error.message).toMatch(/^searchAnalytics\.query: unreadable answer at rows\.0\.keys\.0: /);
  answer(QUERY_PATH, { status: 200, body: '<html>' });
  expect((await failure(client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).message).toMatch(
    /^searchAnalytics\.query: unreadable answer at its root: /,
  );
});

it('fails a request that gets no answer in time, or no connection, as worth retrying', async () => {
  answer(QUERY_PATH, { status: 0, body: '' });
  const hanging = await failure(
    client(keyOf(), { timeoutMs: 200 }).dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()),
  );
  expect(hanging).toMatchObject({
    retryable: true,
    timedOut: true,
    message: expect.stringContaining('no answer within 200 ms'),
  });
  // Nothing listens on port 1.
  const closed = client(keyOf(), { tokenUrl: 'https://public.test:1/token' });
  expect(await failure(closed.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: true,
    timedOut: false,
    message: expect.stringContaining('request failed'),
  });
});

it('fails for good when the token endpoint refuses the key, and passes its 5xx', async () => {
  answer('/token', file('token.invalid-grant', 400));
  const key = keyOf();
  const refused = await failure(client(key).dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()));
  expect(refused).toMatchObject({ retryable: false, code: 400 });
  expect(refused.message).toContain(`the service account ${key.client_email} (invalid_grant: Invalid JWT Signature.)`);
  answer('/token', { status: 503, body: '' });
  expect(await failure(client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: true,
    code: 503,
  });
  answer('/token', { status: 200, body: '{"token_type":"Bearer"}' });
  expect(await failure(client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: true,
    message: expect.stringContaining('unreadable token answer'),
  });
  expect(queries()).toEqual([]);
});

it('refuses a key it cannot sign with, and a key JSON without its fields', async () => {
  const bad = serviceAccountKey({
    client_email: 'broken@content-api.iam.gserviceaccount.com',
    private_key: 'not a key',
  });
  const error = await failure(client(bad).dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()));
  expect(error).toMatchObject({ retryable: false });
  expect(error.message).toContain('broken@content-api.iam.gserviceaccount.com has no usable private_key');
  expect(() => serviceAccountKey({ client_email: 'a@b.c' })).toThrow(
    /not a service account's JSON key \(private_key\)/,
  );
  expect(() => serviceAccountKey(undefined)).toThrow(/\(the key\)/);
  expect(received).toEqual([]);
});

it('connects to no private address, nor to loopback unless allowed, whatever the resolver says', async () => {
  const connections = google.connections;
  // Google's own hosts, by default, resolved to a private address.
  const privateDns = googleSearchConsole(keyOf(), { resolve: async () => ['10.0.0.7'] });
  expect(await failure(privateDns.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: false,
    message:
      'https://oauth2.googleapis.com/token refused: oauth2.googleapis.com resolves to 10.0.0.7, not a public address',
  });
  const privateApi = client(keyOf(), {
    resolve: async (host) => (host === 'public.test' ? ['127.0.0.3'] : ['10.0.0.7']),
    apiBaseUrl: undefined,
  });
  answerDay();
  expect(await failure(privateApi.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: false,
    message: expect.stringContaining(
      `https://www.googleapis.com/webmasters/v3/sites/${encodeURIComponent(PROPERTY)}/searchAnalytics/query refused`,
    ),
  });
  const loopback = client(keyOf(), { allowLoopback: false });
  expect(await failure(loopback.dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter()))).toMatchObject({
    retryable: false,
  });
  // The token came from the stand-in; nothing else reached it.
  expect(google.connections).toBe(connections + 1);
  expect(received.map((r) => r.path)).toEqual(['/token']);
});

it('starts no call once its run is given up', async () => {
  const run = new AbortController();
  run.abort();
  await expect(
    client().dayRows(PROPERTY, '2026-11-24', 'final', CONTEXT, new Meter({ signal: run.signal })),
  ).rejects.toThrow("the run's deadline passed");
  expect(received).toEqual([]);
});
