import { classify, DataForSeoKeywordData, ENDPOINTS, Meter, ProviderError } from '@cm/providers';
import { fixture, useReplay } from '../helpers/replay';
import { given } from '../helpers/client';

const replay = useReplay();

/** The adapter against the replay server, with pauses short enough for a test. */
const adapter = (retries = 3) =>
  new DataForSeoKeywordData({
    login: 'api-login',
    password: 's3cret',
    baseUrl: replay.url,
    retries,
    backoffMs: 2,
    random: () => 0.5,
  });

const costs = (meter: Meter) => meter.calls.map((c) => c.cost_usd);

describe('DataForSEO envelopes', () => {
  it('classifies status codes from the body: ok, empty, billed without data, transient, terminal', () => {
    expect(classify(20000)).toBe('ok');
    expect(classify(40102)).toBe('empty');
    expect(classify(40101)).toBe('billed_no_data');
    // The retried codes, by their messages in DataForSEO's error list (see client.ts).
    for (const code of [40103, 40202, 40209, 50000, 50301, 50303, 50401]) expect(classify(code)).toBe('transient');
    // Fixed by the caller (request, login, funds, limits, subscription), or by DataForSEO's support, not by a pause.
    for (const code of [40501, 40100, 40200, 40201, 40204, 40210, 40203, 50100, 50304])
      expect(classify(code)).toBe('terminal');
  });

  it('reads search volume and intent in two calls, with HTTP Basic auth and one task per call, and records each cost', async () => {
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'search_volume.ok' });
    replay.answer(ENDPOINTS.searchIntent, { fixture: 'search_intent.ok' });
    const meter = new Meter();
    const metrics = await adapter().keywordMetrics(
      ['running shoes', 'trail running shoes', 'zzqx running'],
      'US/en',
      meter,
    );

    expect([...metrics.keys()]).toEqual(['running shoes', 'trail running shoes']); // no volume: no data
    expect(metrics.get('running shoes')).toEqual({
      keyword: 'running shoes',
      volume: 201000,
      cpc_usd: 1.87,
      competition: 1,
      intent: 'commercial',
    });
    expect(metrics.get('trail running shoes')).toMatchObject({
      volume: 49500,
      competition: 0.57,
      intent: 'transactional',
    });
    expect(costs(meter)).toEqual([0.075, 0.0012]);
    expect(meter.costUsd).toBe(0.0762);

    const [volume, intent] = replay.requests;
    expect(given(volume, 'the volume').authorization).toBe(
      `Basic ${Buffer.from('api-login:s3cret').toString('base64')}`,
    );
    expect(given(volume, 'the volume').body).toEqual([
      { keywords: ['running shoes', 'trail running shoes', 'zzqx running'], location_code: 2840, language_code: 'en' },
    ]);
    // Intent only for keywords with data; the Labs endpoint takes a language, no location.
    expect(given(intent, 'the intent').body).toEqual([
      { keywords: ['running shoes', 'trail running shoes'], language_code: 'en' },
    ]);
  });

  it('omits location_code for a worldwide locale where the endpoint allows it, and falls back to the US where it does not', async () => {
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'search_volume.ok' });
    replay.answer(ENDPOINTS.searchIntent, { fixture: 'search_intent.ok' });
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    replay.answer(ENDPOINTS.keywordIdeas, { fixture: 'keyword_ideas.ok' });
    const meter = new Meter();
    await adapter().keywordMetrics(['running shoes'], 'WW/en', meter);
    await adapter().serpOrganic('running shoes', 'WW/en', 20, meter);
    await adapter().keywordIdeas(['running shoes'], 'GB/en', 100, meter);
    const bodies = replay.requests.map((r) => [r.endpoint, r.body[0]]);
    expect(bodies[0]).toEqual([ENDPOINTS.searchVolume, { keywords: ['running shoes'], language_code: 'en' }]);
    expect(bodies[2]).toEqual([
      ENDPOINTS.serpOrganic,
      { keyword: 'running shoes', location_code: 2840, language_code: 'en', depth: 20, device: 'desktop' },
    ]);
    expect(bodies[3]).toEqual([
      ENDPOINTS.keywordIdeas,
      { keywords: ['running shoes'], location_code: 2826, language_code: 'en', limit: 100 },
    ]);
  });

  it('keeps only organic results of a SERP, positioned by rank_group', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    const meter = new Meter();
    const items = await adapter().serpOrganic('running shoes', 'US/en', 20, meter);
    expect(items.map((i) => [i.position, i.domain])).toEqual([
      [1, 'www.runnersworld.com'],
      [2, 'demo.example.com'],
      [3, 'www.rei.com'],
      [4, 'www.rival-shoes.com'],
      [5, 'en.wikipedia.org'],
      [6, 'www.nike.com'],
    ]);
    expect(costs(meter)).toEqual([fixture('serp_organic.ok').cost]);
  });

  it('reads keyword ideas with their metrics and intent', async () => {
    replay.answer(ENDPOINTS.keywordIdeas, { fixture: 'keyword_ideas.ok' });
    const ideas = await adapter().keywordIdeas(['running shoes'], 'US/en', 100, new Meter());
    expect(ideas).toEqual([
      {
        keyword: 'best running shoes for women',
        volume: 33100,
        cpc_usd: 1.42,
        competition: 0.83,
        intent: 'commercial',
      },
      {
        keyword: 'running shoes store near me',
        volume: 8100,
        cpc_usd: 2.05,
        competition: 0.41,
        intent: 'transactional',
      },
    ]);
  });
});

describe('DataForSEO retries', () => {
  it.each([
    ['a rate limit (40202, envelope level)', { fixture: 'rate_limit.40202' }],
    ['too many simultaneous queries (40209, task level)', { fixture: 'search_volume.40209' }],
    ['an internal error (50000)', { fixture: 'serp_organic.50000' }],
    ['HTTP 500', { fixture: 'http500', status: 500 }],
  ])('retries %s with backoff, then succeeds', async (_name, transient) => {
    replay.answer(ENDPOINTS.serpOrganic, transient, transient, { fixture: 'serp_organic.ok' });
    const meter = new Meter();
    const started = Date.now();
    const items = await adapter().serpOrganic('running shoes', 'US/en', 20, meter);
    expect(items).toHaveLength(6);
    expect(replay.requests).toHaveLength(3);
    expect(meter.calls).toHaveLength(3); // every attempt is in the ledger
    expect(Date.now() - started).toBeGreaterThanOrEqual(6); // jittered pauses of 0.5 × 2 × 2^n ms: 2 + 4
  });

  it('gives up after its retries with a retryable provider error', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'rate_limit.40202' });
    const error = await adapter(2)
      .serpOrganic('running shoes', 'US/en', 20, new Meter())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'dataforseo', retryable: true });
    expect((error as Error).message).toContain('40202');
    expect(replay.requests).toHaveLength(3);
  });

  it.each([
    ['an invalid field (40501)', { fixture: 'search_volume.40501' }, 40501],
    ['insufficient funds (40210)', { fixture: 'search_volume.40210' }, 40210],
    ['HTTP 401 (login)', { fixture: 'http401', status: 401 }, 401],
    ['HTTP 402 (payment)', { fixture: 'http402', status: 402 }, 402],
  ])('does not retry %s', async (_name, terminal, code) => {
    replay.answer(ENDPOINTS.searchVolume, terminal, { fixture: 'search_volume.ok' });
    const error = await adapter()
      .keywordMetrics(['running shoes'], 'US/en', new Meter())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: false, code });
    expect(replay.requests).toHaveLength(1);
  });

  it('records the cost of a 40101 "no data but billed" task and reports the SERP pull as failed, not retried', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.40101' }, { fixture: 'serp_organic.ok' });
    const meter = new Meter();
    const error = await adapter()
      .serpOrganic('running shoes', 'US/en', 20, meter)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ provider: 'dataforseo', retryable: true, code: 40101 });
    expect(replay.requests).toHaveLength(1);
    expect(meter.calls).toEqual([{ provider: 'dataforseo', endpoint: ENDPOINTS.serpOrganic, cost_usd: 0.002 }]);
  });

  it('treats a 40101 on search volume as no data, billed', async () => {
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'serp_organic.40101' });
    const meter = new Meter();
    const metrics = await adapter().keywordMetrics(['running shoes'], 'US/en', meter);
    expect(metrics.size).toBe(0);
    expect(meter.costUsd).toBe(0.002);
    expect(replay.requests.map((r) => r.endpoint)).toEqual([ENDPOINTS.searchVolume]); // no intent call for nothing
  });
});

/*
 * Edge cases the schema allows (openapi_specification.yaml of dataforseo/TypeScriptClient: result, items,
 * keyword_info, title and tasks are all nullable), each from a recording naming its source in `_source`.
 */
describe('DataForSEO nulls and envelope-level codes', () => {
  it('reads a 20000 task with result null as no data: no metrics, no intent call, the billed cost recorded', async () => {
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'search_volume.result-null' });
    const meter = new Meter();
    const metrics = await adapter().keywordMetrics(['running shoes', 'trail running shoes'], 'US/en', meter);
    expect(metrics.size).toBe(0);
    expect(replay.requests.map((r) => r.endpoint)).toEqual([ENDPOINTS.searchVolume]);
    expect(meter.calls).toEqual([{ provider: 'dataforseo', endpoint: ENDPOINTS.searchVolume, cost_usd: 0.075 }]);
  });

  it('reads a 20000 SERP task with result null as an empty SERP, not an error', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'search_volume.result-null' });
    expect(await adapter().serpOrganic('running shoes', 'US/en', 20, new Meter())).toEqual([]);
    expect(replay.requests).toHaveLength(1);
  });

  it('reads items: null as no ideas', async () => {
    replay.answer(ENDPOINTS.keywordIdeas, { fixture: 'keyword_ideas.items-null' });
    const meter = new Meter();
    expect(await adapter().keywordIdeas(['running shoes'], 'US/en', 100, meter)).toEqual([]);
    expect(meter.costUsd).toBe(fixture('keyword_ideas.items-null').cost);
  });

  it('keeps an idea whose keyword_info is null, without metrics, with its intent', async () => {
    replay.answer(ENDPOINTS.keywordIdeas, { fixture: 'keyword_ideas.keyword-info-null' });
    const ideas = await adapter().keywordIdeas(['running shoes'], 'US/en', 100, new Meter());
    expect(ideas).toEqual([
      {
        keyword: 'best running shoes for women',
        volume: 33100,
        cpc_usd: 1.42,
        competition: 0.83,
        intent: 'commercial',
      },
      {
        keyword: 'running shoes store near me',
        volume: null,
        cpc_usd: null,
        competition: null,
        intent: 'transactional',
      },
    ]);
  });

  it('keeps organic results whose title is null, with an empty title', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.title-null' });
    const items = await adapter().serpOrganic('running shoes', 'US/en', 20, new Meter());
    expect(items.map((i) => [i.position, i.domain, i.title])).toEqual([
      [1, 'www.runnersworld.com', 'The Best Running Shoes of 2026'],
      [2, 'demo.example.com', 'Best running shoes, tested'],
      [3, 'www.rei.com', ''],
      [4, 'www.rival-shoes.com', 'Running Shoes | Rival Shoes'],
      [5, 'en.wikipedia.org', 'Running shoe - Wikipedia'],
      [6, 'www.nike.com', ''],
    ]);
  });

  it('reads an envelope-level 40101 with tasks null as a task-level one: a billed, failed SERP pull worth retrying later, not retried now', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'tasks_null.40101' }, { fixture: 'serp_organic.ok' });
    const meter = new Meter();
    const error = await adapter()
      .serpOrganic('running shoes', 'US/en', 20, meter)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'dataforseo', retryable: true, code: 40101 });
    expect(replay.requests).toHaveLength(1);
    expect(meter.calls).toEqual([{ provider: 'dataforseo', endpoint: ENDPOINTS.serpOrganic, cost_usd: 0.002 }]);

    // On search volume, as at task level: no data, billed.
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'tasks_null.40101' });
    const volumes = new Meter();
    expect((await adapter().keywordMetrics(['running shoes'], 'US/en', volumes)).size).toBe(0);
    expect(volumes.costUsd).toBe(0.002);
  });

  it.each([
    ['the cost limit (40203)', 'tasks_null.40203', 40203],
    ['an invalid field (40501)', 'tasks_null.40501', 40501],
  ])(
    'fails at once on %s at envelope level with tasks null, not retryable, the unbilled call recorded',
    async (_name, name, code) => {
      replay.answer(ENDPOINTS.searchVolume, { fixture: name }, { fixture: 'search_volume.ok' });
      const meter = new Meter();
      const error = await adapter()
        .keywordMetrics(['running shoes'], 'US/en', meter)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'dataforseo', retryable: false, code });
      expect((error as Error).message).toContain(fixture(name).status_message);
      expect(replay.requests).toHaveLength(1);
      expect(meter.calls).toEqual([{ provider: 'dataforseo', endpoint: ENDPOINTS.searchVolume, cost_usd: 0 }]);
    },
  );
});
