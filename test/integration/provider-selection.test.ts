import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENDPOINTS, Meter, type KeywordDataProvider, type ResearchProvider } from '@cm/providers';
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { SERVICE_LIMITS } from '@cm/contract';
import {
  DEFAULT_BEDROCK_MODEL,
  getBacklinkData,
  getKeywordData,
  json,
  loadConfig,
  logger,
  resetServices,
  routeHandler,
  selectKeywordData,
} from '@cm/runtime';
import { lambdaContext } from '@cm/local';
import { ORIGIN_VERIFY_HEADER } from '@cm/contract';
import { providerOf } from '../../packages/runtime/src/oauth/provider';
import { readSecretText } from '../../packages/runtime/src/secrets';
import { searchConsoleFor, searchConsoleKey } from '../../packages/runtime/src/providers';
import { apiEvent } from '../helpers/lambda-events';
import { getResearch, selectResearch } from '@cm/runtime/web-provider';
import { fakeClock } from '../helpers/clock';
import { conversePath, startWebReplay, type WebReplay } from '../helpers/web-replay';
import { startReplay, type Replay } from '../helpers/replay';
import { given } from '../helpers/client';

/* Which providers a configuration selects, and credentials read from Secrets Manager (a loopback stand-in). */

let replay: Replay;
let secrets: Server;
const secretRequests: Array<{ target: string | undefined; body: any }> = [];
const saved = { ...process.env };
/** Each secret's value: a JSON secret's fields, or a generated secret's text. */
const SECRETS: Record<string, Record<string, string> | string> = {
  'content-api/dataforseo': { login: 'from-secret', password: 'pw-from-secret' },
  'content-api/tavily': { api_key: 'tvly-from-secret' },
  'content-api/search-console': {
    type: 'service_account',
    client_email: 'importer@content-api.iam.gserviceaccount.com',
    private_key: '-----BEGIN PRIVATE KEY-----\nfrom-secret\n-----END PRIVATE KEY-----\n',
  },
};

beforeAll(async () => {
  replay = await startReplay();
  secrets = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      secretRequests.push({ target: req.headers['x-amz-target'] as string | undefined, body });
      if (SECRETS[body.SecretId] === undefined) {
        res.writeHead(400, {
          'content-type': 'application/x-amz-json-1.1',
          'x-amzn-errortype': 'ResourceNotFoundException',
        });
        return res.end(
          JSON.stringify({
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:content-api/dataforseo-AbCdEf',
          Name: 'content-api/dataforseo',
          SecretString: ((value) => (typeof value === 'string' ? value : JSON.stringify(value)))(
            SECRETS[body.SecretId],
          ),
          VersionId: 'v1',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => secrets.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'eu-west-1',
  });
});
afterAll(async () => {
  process.env = saved;
  await replay.close();
  await new Promise<void>((resolve) => secrets.close(() => resolve()));
});

it('uses the sandbox without credentials', async () => {
  expect((await selectKeywordData({})).name).toBe('sandbox');
  expect((await selectKeywordData({ login: 'only-login' })).name).toBe('sandbox');
});

it('uses DataForSEO with a login and password from the environment', async () => {
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const provider = await selectKeywordData({ login: 'env-login', password: 'env-pw', baseUrl: replay.url });
  expect(provider.name).toBe('dataforseo');
  await provider.serpOrganic('running shoes', 'US/en', 20, new Meter());
  expect(given(replay.requests.at(-1), 'the item').authorization).toBe(
    `Basic ${Buffer.from('env-login:env-pw').toString('base64')}`,
  );
});

it("reads Search Console's service account key from SEARCH_CONSOLE_KEY, or from the secret SEARCH_CONSOLE_SECRET names", async () => {
  const key = {
    client_email: 'env@content-api.iam.gserviceaccount.com',
    private_key: 'pem',
    project_id: 'content-api',
  };
  const { searchConsole } = loadConfig({
    TABLE_NAME: 'content',
    SEARCH_CONSOLE_KEY: JSON.stringify(key),
    SEARCH_CONSOLE_SECRET: 'content-api/search-console',
  });
  expect(searchConsole).toEqual({ key: JSON.stringify(key), secret: 'content-api/search-console' });
  expect(await searchConsoleKey(searchConsole)).toEqual(key);
  expect(await searchConsoleKey({})).toBeNull();
  await expect(searchConsoleKey({ key: '{"client_email":' })).rejects.toThrow(/not a service account's JSON key/);
  expect(secretRequests).toEqual([]);

  expect(await searchConsoleKey({ secret: 'content-api/search-console' })).toMatchObject({
    client_email: 'importer@content-api.iam.gserviceaccount.com',
  });
  expect(secretRequests.map((r) => r.body.SecretId)).toEqual(['content-api/search-console']);
  secretRequests.length = 0;
});

it("imports with Google's client when a key is configured, and with the sandbox's without one", () => {
  const google = searchConsoleFor({ client_email: 'importer@content-api.iam.gserviceaccount.com', private_key: 'pem' });
  expect([google.name, google.serviceAccount]).toEqual([
    'google-search-console',
    'importer@content-api.iam.gserviceaccount.com',
  ]);
  const sandbox = searchConsoleFor(null);
  expect([sandbox.name, sandbox.serviceAccount]).toEqual(['sandbox', null]);
});

it('reads the credentials from a Secrets Manager secret when one is named', async () => {
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const provider = await selectKeywordData({ secret: 'content-api/dataforseo', baseUrl: replay.url });
  expect(secretRequests).toEqual([
    { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'content-api/dataforseo' } },
  ]);
  await provider.serpOrganic('running shoes', 'US/en', 20, new Meter());
  expect(given(replay.requests.at(-1), 'the item').authorization).toBe(
    `Basic ${Buffer.from('from-secret:pw-from-secret').toString('base64')}`,
  );
});

describe('web research', () => {
  let web: WebReplay;
  beforeAll(async () => {
    web = await startWebReplay();
  });
  afterAll(() => web.close());
  const config = (env: Record<string, string>) =>
    loadConfig({
      TABLE_NAME: 'content',
      TAVILY_BASE_URL: web.url,
      BEDROCK_ENDPOINT: web.http2Url,
      AWS_REGION: 'us-east-1',
      ...env,
    });

  it('uses the sandbox without a Tavily key, whatever else is set', async () => {
    expect((await selectResearch(config({}))).name).toBe('sandbox');
    expect((await selectResearch(config({ BEDROCK_MODEL_ID: 'anthropic.claude-3-5-haiku-20241022-v1:0' }))).name).toBe(
      'sandbox',
    );
  });

  it('uses Tavily and Bedrock with a key from the environment, or from a Secrets Manager secret', async () => {
    web.answer('/search', { fixture: 'tavily.search.ok' });
    web.answer(conversePath(DEFAULT_BEDROCK_MODEL), { fixture: 'bedrock.converse.ok' });
    const fromEnv = await selectResearch(config({ TAVILY_API_KEY: 'tvly-from-env' }));
    expect(fromEnv.name).toBe('tavily+bedrock');
    await fromEnv.research({ mode: 'web', query: 'running shoes', question: null }, new Meter());
    expect(
      given(
        web.requests.find((r) => r.path === '/search'),
        'the find',
      ).headers.authorization,
    ).toBe('Bearer tvly-from-env');
    // The default model, unless BEDROCK_MODEL_ID names another.
    expect(web.requests.map((r) => r.path)).toContain(conversePath('us.anthropic.claude-haiku-4-5-20251001-v1:0'));

    web.requests.length = 0;
    secretRequests.length = 0;
    const fromSecret = await selectResearch(config({ TAVILY_SECRET: 'content-api/tavily' }));
    expect(secretRequests).toEqual([
      { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'content-api/tavily' } },
    ]);
    await fromSecret.research({ mode: 'web', query: 'running shoes', question: null }, new Meter());
    expect(
      given(
        web.requests.find((r) => r.path === '/search'),
        'the find',
      ).headers.authorization,
    ).toBe('Bearer tvly-from-secret');
  });

  it('prices the default model: Claude Haiku 4.5 through its US profile, at the regional price, with no warning', async () => {
    web.answer('/search', { fixture: 'tavily.search.ok' });
    web.answer(conversePath(DEFAULT_BEDROCK_MODEL), { fixture: 'bedrock.converse.ok' });
    const warn = jest.spyOn(logger, 'warn');
    try {
      const meter = new Meter();
      await (
        await selectResearch(config({ TAVILY_API_KEY: 'tvly-from-env' }))
      ).research({ mode: 'web', query: 'running shoes', question: null }, meter);
      // 1873 input tokens at $1.10/M and 412 output tokens at $5.50/M ($1 and $5 through global., 10% more through a regional profile).
      expect(meter.calls.find((c) => c.provider === 'bedrock')).toEqual({
        provider: 'bedrock',
        endpoint: 'converse',
        cost_usd: 0.004326,
      });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('logs a warning for a model without a price, which is charged at the dearest known one, never at zero', async () => {
    const unknown = 'us.anthropic.claude-future-20270101-v1:0';
    web.answer('/search', { fixture: 'tavily.search.ok' });
    web.answer(conversePath(unknown), { fixture: 'bedrock.converse.ok' });
    const warn = jest.spyOn(logger, 'warn');
    try {
      const provider = await selectResearch(config({ TAVILY_API_KEY: 'tvly-from-env', BEDROCK_MODEL_ID: unknown }));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('has no price'), {
        model_id: unknown,
        price: { input: 3, output: 15 },
      });
      const meter = new Meter();
      await provider.research({ mode: 'web', query: 'running shoes', question: null }, meter);
      expect(
        given(
          meter.calls.find((c) => c.provider === 'bedrock'),
          'the find',
        ).cost_usd,
      ).toBe(0.011799);
    } finally {
      warn.mockRestore();
    }
  });

  it('refuses a secret without an api_key, naming what is missing', async () => {
    await expect(selectResearch(config({ TAVILY_SECRET: 'content-api/dataforseo' }))).rejects.toThrow(
      'secret content-api/dataforseo has no "api_key"',
    );
  });
});

describe('secrets rotate without a redeploy', () => {
  const MAX_AGE_MS = SERVICE_LIMITS.secretMaxAgeSeconds * 1000;
  const start = Date.now();
  let web: WebReplay;
  beforeAll(async () => {
    web = await startWebReplay();
  });
  afterAll(() => web.close());
  beforeEach(() => {
    fakeClock(start);
    // A new container: nothing read yet.
    clearCaches();
    secretRequests.length = 0;
  });
  afterEach(() => {
    jest.useRealTimers();
    for (const key of ['DATAFORSEO_SECRET', 'TAVILY_SECRET', 'TAVILY_BASE_URL', 'TABLE_NAME']) delete process.env[key];
    resetServices();
  });

  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  /** The Authorization header a keyword data provider sends. */
  async function authorizationOf(provider: KeywordDataProvider): Promise<string | undefined> {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    await provider.serpOrganic('running shoes', 'US/en', 20, new Meter());
    return given(replay.requests.at(-1), 'the item').authorization;
  }
  /** The Bearer key a research provider searches Tavily with. */
  async function tavilyKeyOf(provider: ResearchProvider): Promise<string | undefined> {
    web.answer('/search', { fixture: 'tavily.search.ok' });
    web.answer(conversePath(DEFAULT_BEDROCK_MODEL), { fixture: 'bedrock.converse.ok' });
    await provider.research({ mode: 'web', query: 'running shoes', question: null }, new Meter());
    return given(web.requests.filter((r) => r.path === '/search').at(-1), 'the item').headers.authorization;
  }

  it('keeps a DataForSEO secret it read for secretMaxAgeSeconds, then uses the rotated one', async () => {
    SECRETS['content-api/rotating'] = { login: 'first', password: 'pw-1' };
    Object.assign(process.env, {
      DATAFORSEO_SECRET: 'content-api/rotating',
      DATAFORSEO_BASE_URL: replay.url,
      TABLE_NAME: 'content',
    });
    resetServices();
    expect(await authorizationOf(await getKeywordData())).toBe(basic('first', 'pw-1'));
    expect((await getBacklinkData()).name).toBe('dataforseo');

    SECRETS['content-api/rotating'] = { login: 'second', password: 'pw-2' };
    jest.setSystemTime(start + MAX_AGE_MS - 1000);
    expect(await authorizationOf(await getKeywordData())).toBe(basic('first', 'pw-1'));
    expect(secretRequests).toHaveLength(1);

    jest.setSystemTime(start + MAX_AGE_MS + 1000);
    expect(await authorizationOf(await getKeywordData())).toBe(basic('second', 'pw-2'));
    expect(await authorizationOf(await getKeywordData())).toBe(basic('second', 'pw-2'));
    expect(secretRequests.map((r) => r.body.SecretId)).toEqual(['content-api/rotating', 'content-api/rotating']);
    delete process.env.DATAFORSEO_BASE_URL;
  });

  it('makes the research worker search with a rotated Tavily key once it is read again, and keeps one provider while the key is the same', async () => {
    SECRETS['content-api/tavily-rotating'] = { api_key: 'tvly-first' };
    Object.assign(process.env, {
      TAVILY_SECRET: 'content-api/tavily-rotating',
      TAVILY_BASE_URL: web.url,
      TABLE_NAME: 'content',
      BEDROCK_ENDPOINT: web.http2Url,
    });
    resetServices();
    const first = await getResearch();
    expect(await tavilyKeyOf(first)).toBe('Bearer tvly-first');

    SECRETS['content-api/tavily-rotating'] = { api_key: 'tvly-second' };
    jest.setSystemTime(start + MAX_AGE_MS - 1000);
    expect(await getResearch()).toBe(first);

    jest.setSystemTime(start + MAX_AGE_MS + 1000);
    const rotated = await getResearch();
    expect(await tavilyKeyOf(rotated)).toBe('Bearer tvly-second');
    expect(await getResearch()).toBe(rotated);
    expect(secretRequests).toHaveLength(2);
    delete process.env.BEDROCK_ENDPOINT;
  });

  it('tries a failed read again on the next call, and keeps nothing of a secret without its fields', async () => {
    Object.assign(process.env, { TAVILY_SECRET: 'content-api/late', TABLE_NAME: 'content' });
    resetServices();
    await expect(getResearch()).rejects.toThrow("Secrets Manager can't find the specified secret.");
    // Created without its key, then completed: each next job reads it again, with no time passing.
    SECRETS['content-api/late'] = { key: 'tvly-late' };
    await expect(getResearch()).rejects.toThrow('secret content-api/late has no "api_key"');
    SECRETS['content-api/late'] = { api_key: 'tvly-late' };
    expect((await getResearch()).name).toBe('tavily+bedrock');
    expect((await getResearch()).name).toBe('tavily+bedrock');
    expect(secretRequests.map((r) => r.body.SecretId)).toEqual([
      'content-api/late',
      'content-api/late',
      'content-api/late',
    ]);
  });
});

describe('the origin secret and the OAuth secret, read at run time (the environment only names them)', () => {
  const start = Date.now();
  beforeEach(() => {
    fakeClock(start);
    clearCaches();
    secretRequests.length = 0;
  });
  afterEach(() => {
    jest.useRealTimers();
    for (const key of ['ORIGIN_VERIFY_SECRET_ARN', 'OAUTH_SECRET_ARN', 'TABLE_NAME']) delete process.env[key];
    resetServices();
  });

  it('refuses a request without the origin secret its secret holds, reading the secret once per secretMaxAgeSeconds', async () => {
    SECRETS['content-api/origin-verify'] = 'edge-secret-from-secrets-manager';
    Object.assign(process.env, { ORIGIN_VERIFY_SECRET_ARN: 'content-api/origin-verify', TABLE_NAME: 'content' });
    resetServices();
    const handle = routeHandler({ 'GET /health': async () => json(200, { ok: true }) }, new WeakMap());
    const call = (headers: Record<string, string>) =>
      handle({ ...apiEvent('GET', '/health'), headers }, lambdaContext('health', 10_000));
    expect(JSON.parse(given((await call({})).body, 'the body'))).toMatchObject({ error: 'edge_required' });
    expect(JSON.parse(given((await call({ [ORIGIN_VERIFY_HEADER]: 'a guess' })).body, 'the body'))).toMatchObject({
      error: 'edge_required',
    });
    expect((await call({ [ORIGIN_VERIFY_HEADER]: 'edge-secret-from-secrets-manager' })).statusCode).toBe(200);
    expect(secretRequests.map((r) => r.body.SecretId)).toEqual(['content-api/origin-verify']);

    // Replaced (a new version of the edge stack's secret): the functions follow within secretMaxAgeSeconds.
    SECRETS['content-api/origin-verify'] = 'the-next-one';
    jest.setSystemTime(start + SERVICE_LIMITS.secretMaxAgeSeconds * 1000 + 1000);
    expect((await call({ [ORIGIN_VERIFY_HEADER]: 'the-next-one' })).statusCode).toBe(200);
    expect(secretRequests).toHaveLength(2);
  });

  it('refuses an origin secret with no text rather than let every request through', async () => {
    SECRETS['content-api/empty-origin'] = '';
    Object.assign(process.env, { ORIGIN_VERIFY_SECRET_ARN: 'content-api/empty-origin', TABLE_NAME: 'content' });
    resetServices();
    await expect(readSecretText('content-api/empty-origin')).rejects.toThrow(
      'secret content-api/empty-origin has no text',
    );
  });

  it('builds the authorization server with the OAuth secret its secret holds, and refuses to start with none', async () => {
    SECRETS['content-api/oauth'] = 'oauth-secret-from-secrets-manager';
    process.env.TABLE_NAME = 'content';
    resetServices();
    await expect(providerOf('https://no-secret.example.com')).rejects.toThrow(
      'neither OAUTH_SECRET nor OAUTH_SECRET_ARN is set',
    );
    process.env.OAUTH_SECRET_ARN = 'content-api/oauth';
    resetServices();
    const provider = await providerOf('https://api.example.com');
    expect(provider.issuer).toBe('https://api.example.com');
    expect(secretRequests.map((r) => r.body.SecretId)).toEqual(['content-api/oauth']);
  });
});
