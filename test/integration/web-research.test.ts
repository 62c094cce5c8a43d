import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isPublicAddress } from '@cm/core';
import { Meter, ProviderError, UrlRefused } from '@cm/providers';
import { WebResearch } from '@cm/providers/web';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { TavilySearch, type TavilyOptions } from '../../packages/providers/src/web/search';
import {
  BedrockSynthesis,
  bedrockPrice,
  type BedrockSynthesisOptions,
  type SourceText,
} from '../../packages/providers/src/web/synthesis';
import { conversePath, startWebReplay, webFixture, type WebRecording, type WebReplay } from '../helpers/web-replay';
import { given } from '../helpers/client';

let replay: WebReplay;
beforeAll(async () => {
  replay = await startWebReplay();
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.requests.length = 0;
});

const QUERY = 'how long do running shoes last';

/** Thrown errors, for assertions on their fields. */
async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('Tavily search', () => {
  /** The adapter against the replay server, with pauses short enough for a test. */
  const tavily = (options: Partial<TavilyOptions> = {}) =>
    new TavilySearch({ apiKey: 'tvly-dev-test', baseUrl: replay.url, retries: 2, backoffMs: 2, ...options });

  it('asks for page text and usage with Bearer auth, maps the results, and records the reported credits at their USD price', async () => {
    replay.answer('/search', { fixture: 'tavily.search.ok' });
    const meter = new Meter();
    const results = await tavily().search(QUERY, {}, meter);

    expect(replay.requests).toHaveLength(1);
    const [request] = replay.requests;
    expect(given(request, 'the request').path).toBe('/search');
    expect(given(request, 'the request').headers.authorization).toBe('Bearer tvly-dev-test');
    expect(given(request, 'the request').headers['content-type']).toBe('application/json');
    expect(given(request, 'the request').body).toEqual({
      query: QUERY,
      search_depth: 'basic',
      max_results: 5,
      include_raw_content: 'text',
      include_answer: false,
      include_usage: true,
    });

    const recorded = webFixture('tavily.search.ok').results;
    expect(results).toEqual(recorded.map((r: any) => ({ title: r.title, url: r.url, content: r.raw_content })));
    expect(meter.calls).toEqual([{ provider: 'tavily', endpoint: 'search', cost_usd: 0.008 }]);
  });

  it('keeps reddit research to reddit.com, falls back to the snippet without page text, and to the documented credits without usage', async () => {
    replay.answer('/search', { fixture: 'tavily.reddit.ok' });
    const meter = new Meter();
    const results = await tavily({ depth: 'advanced', maxResults: 8, usdPerCredit: 0.01 }).search(
      QUERY,
      { domains: ['reddit.com'] },
      meter,
    );

    expect(given(replay.requests[0], 'the replay.requests[0]').body).toMatchObject({
      search_depth: 'advanced',
      max_results: 8,
      include_domains: ['reddit.com'],
    });
    expect(results.map((r) => new URL(r.url).hostname)).toEqual(['www.reddit.com', 'www.reddit.com']);
    expect(given(results[1], 'the results[1]').content).toBe(webFixture('tavily.reddit.ok').results[1].content);
    // No usage in the response: an advanced search is 2 credits.
    expect(meter.calls).toEqual([{ provider: 'tavily', endpoint: 'search', cost_usd: 0.02 }]);
  });

  it('reads an answer without usage whose results have raw_content null: the snippets, at the documented credits of its depth', async () => {
    replay.answer('/search', { fixture: 'tavily.no-usage' });
    const meter = new Meter();
    const results = await tavily().search(QUERY, {}, meter);

    const recorded = webFixture('tavily.no-usage');
    expect(recorded.usage).toBeUndefined();
    expect(results).toEqual(recorded.results.map((r: any) => ({ title: r.title, url: r.url, content: r.content })));
    // No usage: a basic search is 1 credit, at $0.008.
    expect(meter.calls).toEqual([{ provider: 'tavily', endpoint: 'search', cost_usd: 0.008 }]);
  });

  it.each([
    ['tavily.401', 401, 'invalid API key'],
    ['tavily.432', 432, "exceeds your plan's set usage limit"],
    ['tavily.432', 433, 'usage limit'],
    ['tavily.401', 403, 'invalid API key'],
  ])('fails at once on %s with HTTP %i, not retryable, at no cost', async (fixture, status, detail) => {
    replay.answer('/search', { fixture, status });
    const meter = new Meter();
    const error = await failure(tavily().search(QUERY, {}, meter));

    expect(error).toMatchObject({ provider: 'tavily', retryable: false, code: status });
    expect(error.message).toContain(detail);
    expect(replay.requests).toHaveLength(1);
    expect(meter.calls).toEqual([{ provider: 'tavily', endpoint: 'search', cost_usd: 0 }]);
  });

  it('retries a rate limit and a server error, then succeeds', async () => {
    replay.answer(
      '/search',
      { fixture: 'tavily.429', status: 429 },
      { fixture: 'tavily.500', status: 500 },
      { fixture: 'tavily.search.ok' },
    );
    const meter = new Meter();
    const results = await tavily().search(QUERY, {}, meter);

    expect(results).toHaveLength(3);
    expect(replay.requests).toHaveLength(3);
    expect(meter.calls.map((c) => c.cost_usd)).toEqual([0, 0, 0.008]);
  });

  it('gives up after its retries with a retryable error', async () => {
    replay.answer('/search', { fixture: 'tavily.500', status: 500 });
    const error = await failure(tavily({ retries: 2 }).search(QUERY, {}, new Meter()));

    expect(error).toMatchObject({ provider: 'tavily', retryable: true });
    expect(error.message).toMatch(/HTTP 500.*gave up after 3 attempts/);
    expect(replay.requests).toHaveLength(3);
  });
});

describe('Bedrock Converse synthesis', () => {
  const MODEL = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
  const THROTTLED: WebRecording = {
    fixture: 'bedrock.throttling',
    status: 429,
    headers: {
      'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      'x-amzn-requestid': '8c1f0e6a-2b7d-4f3e-9a51-6d0c4b2e7f19',
    },
  };
  const DENIED: WebRecording = {
    fixture: 'bedrock.access-denied',
    status: 403,
    headers: {
      'x-amzn-errortype': 'AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/',
      'x-amzn-requestid': '3e9b7d21-6c4a-4e08-b1f5-0a8d2c6e9b47',
    },
  };

  /** The sources of the recorded Tavily search, numbered as research numbers them. */
  const SOURCES: SourceText[] = webFixture('tavily.search.ok').results.map((r: any, i: number) => ({
    id: `src-${i + 1}`,
    title: r.title,
    url: r.url,
    text: r.raw_content,
  }));

  /** Static credentials and a region sign offline; the SDK's own retry pauses 5 ms instead of up to seconds. */
  const bedrock = (options: Partial<BedrockSynthesisOptions> = {}) =>
    new BedrockSynthesis({
      modelId: MODEL,
      region: 'us-east-1',
      endpoint: replay.http2Url,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      retryStrategy: new ConfiguredRetryStrategy(3, 5),
      ...options,
    });

  const promptOf = (request: { body: any }): string => request.body.messages[0].content[0].text;

  it('sends the model id in the path, forces the findings tool, and numbers the sources with their ids', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    await bedrock().synthesize(
      { query: QUERY, question: 'When should a heavier runner replace shoes?' },
      SOURCES,
      new Meter(),
    );

    expect(replay.requests).toHaveLength(1);
    const [request] = replay.requests;
    expect(given(request, 'the request').rawPath).toBe('/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
    expect(given(request, 'the request').headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );

    const { toolConfig, system, messages } = given(request, 'the request').body;
    expect(toolConfig.toolChoice).toEqual({ tool: { name: 'record_findings' } });
    expect(toolConfig.tools).toHaveLength(1);
    expect(toolConfig.tools[0].toolSpec.name).toBe('record_findings');
    expect(toolConfig.tools[0].toolSpec.inputSchema.json).toMatchObject({
      type: 'object',
      required: ['facts', 'opinions'],
      properties: {
        facts: { type: 'array', items: { required: ['text', 'source_ids'] } },
        opinions: { type: 'array' },
      },
    });
    expect(system[0].text).toMatch(/only the ids given/);
    expect(messages).toHaveLength(1);
    expect(messages[0].role).toBe('user');

    const prompt = promptOf(given(request, 'the request'));
    expect(prompt).toContain(`Query: ${QUERY}`);
    expect(prompt).toContain('Question: When should a heavier runner replace shoes?');
    for (const source of SOURCES) {
      expect(prompt).toContain(
        `<source id="${source.id}">\nTitle: ${source.title}\nURL: ${source.url}\n\n${source.text}\n</source>`,
      );
    }
  });

  it('leaves the question out when there is none', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    await bedrock().synthesize({ query: QUERY, question: null }, SOURCES, new Meter());
    expect(promptOf(given(replay.requests[0], 'the replay.requests[0]'))).not.toContain('Question:');
  });

  it('reads the findings from the tool input, drops unknown source ids and findings left without a source, and records the token cost', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const meter = new Meter();
    const findings = await bedrock().synthesize({ query: QUERY, question: null }, SOURCES, meter);

    expect(findings.facts).toEqual([
      { text: 'Most running shoes should be replaced every 300 to 500 miles.', source_ids: ['src-1', 'src-2'] },
      { text: 'The midsole foam wears out before the outsole shows obvious wear.', source_ids: ['src-1'] },
      { text: 'Polyurethane midsoles are denser and generally more durable than EVA midsoles.', source_ids: ['src-3'] },
      { text: 'Trail shoes with a rock plate often last longer than road shoes.', source_ids: ['src-2'] },
    ]);
    expect(findings.opinions).toEqual([
      { text: 'Rotating two pairs lets the foam decompress between runs.', source_ids: ['src-1'] },
      { text: 'Buy a new pair before the old one is completely worn out.', source_ids: ['src-2'] },
    ]);
    // 1873 input tokens at $0.80/M and 412 output tokens at $4/M: the us. profile has its model's price.
    expect(meter.calls).toEqual([{ provider: 'bedrock', endpoint: 'converse', cost_usd: 0.003146 }]);
  });

  it('prices tokens at an explicit price, and an unknown model at the dearest known one', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const priced = new Meter();
    await bedrock({ usdPerMillionTokens: { input: 1, output: 5 } }).synthesize(
      { query: QUERY, question: null },
      SOURCES,
      priced,
    );
    expect(priced.calls.map((c) => c.cost_usd)).toEqual([0.003933]);

    const unknown = 'mistral.mistral-large-2407-v1:0';
    replay.answer(conversePath(unknown), { fixture: 'bedrock.converse.ok' });
    const unpriced = new Meter();
    const warn = jest.fn();
    await bedrock({ modelId: unknown, warn }).synthesize({ query: QUERY, question: null }, SOURCES, unpriced);
    // $3/M in, $15/M out, and said so once.
    expect(unpriced.calls.map((c) => c.cost_usd)).toEqual([0.011799]);
    expect(warn.mock.calls).toEqual([
      [expect.stringContaining('has no price'), { model_id: unknown, price: { input: 3, output: 15 } }],
    ]);

    const known = jest.fn();
    bedrock({ warn: known });
    expect(known).not.toHaveBeenCalled();
  });

  it('prices Claude 4.5 and later 10% higher through a regional endpoint than through the global profile', () => {
    const haiku = 'anthropic.claude-haiku-4-5-20251001-v1:0';
    expect(bedrockPrice(`global.${haiku}`)).toEqual({ input: 1, output: 5 });
    expect(bedrockPrice(`us.${haiku}`)).toEqual({ input: 1.1, output: 5.5 });
    expect(bedrockPrice(`eu.${haiku}`)).toEqual({ input: 1.1, output: 5.5 });
    expect(bedrockPrice(haiku)).toEqual({ input: 1.1, output: 5.5 });
    // Earlier models have one price wherever they run.
    expect(bedrockPrice('global.anthropic.claude-sonnet-4-20250514-v1:0')).toEqual({ input: 3, output: 15 });
    expect(bedrockPrice('us.anthropic.claude-sonnet-4-20250514-v1:0')).toEqual({ input: 3, output: 15 });
    expect(bedrockPrice('us.anthropic.claude-unknown-v1:0')).toBeUndefined();
    expect(bedrockPrice('mistral.mistral-large-2407-v1:0')).toBeUndefined();
  });

  it('caps each source and the whole prompt, leaving out the sources past the budget', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const long = Array.from({ length: 6 }, (_v, i) => ({
      id: `src-${i + 1}`,
      title: `Page ${i + 1}`,
      url: `https://example.com/${i + 1}`,
      text: given('abcdef'[i], 'a letter').repeat(10_000),
    }));
    const findings = await bedrock().synthesize({ query: QUERY, question: null }, long, new Meter());

    const prompt = promptOf(given(replay.requests[0], 'the replay.requests[0]'));
    expect(prompt).toContain(`\n${'a'.repeat(6000)}\n</source>`);
    expect(prompt).not.toContain('a'.repeat(6001));
    expect(prompt).toContain('<source id="src-5">');
    expect(prompt).not.toContain('src-6');
    expect(prompt).not.toContain('ffff');
    // src-3 is in the prompt, so the finding citing it stays.
    expect(findings.facts.map((f) => f.source_ids)).toContainEqual(['src-3']);
  });

  it('asks nothing of the model without sources', async () => {
    const meter = new Meter();
    expect(await bedrock().synthesize({ query: QUERY, question: null }, [], meter)).toEqual({
      facts: [],
      opinions: [],
    });
    expect(replay.requests).toHaveLength(0);
    expect(meter.calls).toEqual([]);
  });

  it('fails, not retryable, when the model answers without the tool, after recording the tokens it billed', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.text-only' });
    const meter = new Meter();
    const error = await failure(bedrock().synthesize({ query: QUERY, question: null }, SOURCES, meter));

    expect(error).toMatchObject({ provider: 'bedrock', retryable: false });
    expect(error.message).toContain('the model returned no findings');
    expect(replay.requests).toHaveLength(1);
    expect(meter.calls).toEqual([{ provider: 'bedrock', endpoint: 'converse', cost_usd: 0.001428 }]);
  });

  it('lets the SDK retry a throttled call, then reads the answer', async () => {
    replay.answer(conversePath(MODEL), THROTTLED, { fixture: 'bedrock.converse.ok' });
    const meter = new Meter();
    const findings = await bedrock().synthesize({ query: QUERY, question: null }, SOURCES, meter);

    expect(findings.facts).toHaveLength(4);
    expect(replay.requests.map((r) => r.headers['amz-sdk-request'])).toEqual(['attempt=1; max=2', 'attempt=2; max=2']);
    expect(meter.calls.map((c) => c.cost_usd)).toEqual([0.003146]);
  });

  it('fails retryable once the SDK has spent its attempts on throttling', async () => {
    replay.answer(conversePath(MODEL), THROTTLED);
    const meter = new Meter();
    const error = await failure(bedrock().synthesize({ query: QUERY, question: null }, SOURCES, meter));

    expect(error).toMatchObject({ provider: 'bedrock', retryable: true, code: 429 });
    expect(error.message).toContain('ThrottlingException');
    expect(replay.requests).toHaveLength(3);
    expect(meter.calls).toEqual([{ provider: 'bedrock', endpoint: 'converse', cost_usd: 0 }]);
  });

  it('fails at once, not retryable, when access to the model is denied', async () => {
    replay.answer(conversePath(MODEL), DENIED);
    const error = await failure(bedrock().synthesize({ query: QUERY, question: null }, SOURCES, new Meter()));

    expect(error).toMatchObject({ provider: 'bedrock', retryable: false, code: 403 });
    expect(error.message).toContain("AccessDeniedException: You don't have access to the model");
    expect(replay.requests).toHaveLength(1);
  });
});

describe('WebResearch: search or fetch, then synthesis', () => {
  const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
  const TLS = join(__dirname, '..', 'fixtures', 'tls');
  const cert = readFileSync(join(TLS, 'cert.pem'));
  let site: Server;
  let pageRequests = 0;
  beforeAll(async () => {
    site = createServer({ cert, key: readFileSync(join(TLS, 'key.pem')) }, (req, res) => {
      pageRequests++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<html><head><title>Shoe care</title></head><body><nav>Menu Shop Login</nav><article><h1>Shoe care</h1>
        <p>${'Midsoles lose their cushioning after about 400 miles of running on roads and tracks. '.repeat(8)}</p></article></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

  /** Loopback stands in for the internet (public.test resolves to it); every other address goes through the real policy. */
  const research = () =>
    new WebResearch({
      search: new TavilySearch({ apiKey: 'tvly-dev-test', baseUrl: replay.url, retries: 0 }),
      synthesis: new BedrockSynthesis({
        modelId: MODEL,
        region: 'us-east-1',
        endpoint: replay.http2Url,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        retryStrategy: new ConfiguredRetryStrategy(1, 5),
      }),
      fetch: {
        ca: cert,
        port: (site.address() as AddressInfo).port,
        resolve: async (host) => ({ 'public.test': ['127.0.0.1'], 'private.test': ['10.0.0.7'] })[host] ?? [],
        isAllowed: (address) => address === '127.0.0.1' || isPublicAddress(address),
      },
    });

  it('web: the found pages become src-<n> sources the findings cite; both calls are metered', async () => {
    replay.answer('/search', { fixture: 'tavily.search.ok' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const meter = new Meter();
    const findings = await research().research({ mode: 'web', query: QUERY, question: null }, meter);

    const found = webFixture('tavily.search.ok').results;
    expect(findings.sources).toEqual(
      found.map((r: any, i: number) => ({
        id: `src-${i + 1}`,
        title: r.title,
        url: r.url,
        accessed_at: expect.any(String),
      })),
    );
    expect(findings.facts.length).toBeGreaterThan(0);
    for (const finding of [...findings.facts, ...findings.opinions])
      for (const id of finding.source_ids) expect(['src-1', 'src-2', 'src-3']).toContain(id);
    const prompt = given(
      replay.requests.find((r) => r.path === conversePath(MODEL)),
      'the find',
    ).body.messages[0].content[0].text;
    expect(prompt).toContain(`<source id="src-1">\nTitle: ${found[0].title}`);
    expect(meter.calls.map((c) => c.provider)).toEqual(['tavily', 'bedrock']);
    expect(meter.costUsd).toBeGreaterThan(0);
  });

  it('reddit: the search is kept to reddit.com', async () => {
    replay.answer('/search', { fixture: 'tavily.reddit.ok' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const findings = await research().research({ mode: 'reddit', query: QUERY, question: null }, new Meter());
    expect(
      given(
        replay.requests.find((r) => r.path === '/search'),
        'the find',
      ).body.include_domains,
    ).toEqual(['reddit.com']);
    expect(findings.sources.every((src) => src.url.startsWith('https://www.reddit.com/'))).toBe(true);
  });

  it('web: an answer without usage and without page text still researches, from the snippets, at the documented credits', async () => {
    replay.answer('/search', { fixture: 'tavily.no-usage' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const meter = new Meter();
    const findings = await research().research({ mode: 'web', query: QUERY, question: null }, meter);

    const found = webFixture('tavily.no-usage').results;
    expect(findings.sources.map((src) => src.url)).toEqual(found.map((r: any) => r.url));
    expect(findings.facts.length).toBeGreaterThan(0);
    const prompt = given(
      replay.requests.find((r) => r.path === conversePath(MODEL)),
      'the find',
    ).body.messages[0].content[0].text;
    for (const r of found) expect(prompt).toContain(r.content);
    expect(meter.calls.map((c) => c.provider)).toEqual(['tavily', 'bedrock']);
    expect(given(meter.calls[0], 'the meter.calls[0]').cost_usd).toBe(0.008);
  });

  it('url: reads the page itself as the one source, with the question as the focus, and no search', async () => {
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const findings = await research().research(
      { mode: 'url', query: 'https://public.test/shoe-care', question: 'When do midsoles wear out?' },
      new Meter(),
    );
    expect(findings.sources).toEqual([
      { id: 'src-1', title: 'Shoe care', url: 'https://public.test/shoe-care', accessed_at: expect.any(String) },
    ]);
    expect(replay.requests.map((r) => r.path)).toEqual([conversePath(MODEL)]);
    const prompt = given(replay.requests[0], 'the replay.requests[0]').body.messages[0].content[0].text;
    expect(prompt).toContain('Question: When do midsoles wear out?');
    expect(prompt).toContain('Midsoles lose their cushioning');
    expect(prompt).not.toContain('Menu Shop Login');
  });

  it('url: a name resolving to a private address is refused, with no fetch and no model call', async () => {
    const before = pageRequests;
    const meter = new Meter();
    await expect(
      research().research({ mode: 'url', query: 'https://private.test/', question: null }, meter),
    ).rejects.toBeInstanceOf(UrlRefused);
    expect(pageRequests).toBe(before);
    expect(replay.requests).toEqual([]);
    expect(meter.calls).toEqual([]);
  });
});
