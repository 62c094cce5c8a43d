import {
  DataForSeoSerpQueue,
  dataForSeoPrice,
  SERP_QUEUE_ENDPOINTS,
  Meter,
  ProviderError,
  UnknownOutcome,
  type SerpTask,
} from '@cm/providers';
import { fixture, useReplay } from '../helpers/replay';
import { given } from '../helpers/client';

/* DataForSEO's SERP standard queue (task_post, then task_get), against recorded responses on loopback. */

const replay = useReplay();

const adapter = (timeoutMs?: number) =>
  new DataForSeoSerpQueue({
    login: 'api-login',
    password: 's3cret',
    baseUrl: replay.url,
    ...(timeoutMs ? { timeoutMs } : {}),
  });

const task = (keyword: string, depth = 20, device: SerpTask['device'] = 'desktop'): SerpTask => ({
  tag: `2026-11-21|US/en#desktop#20#${keyword}`,
  keyword,
  locale: 'US/en',
  device,
  depth,
});
const FIRST = '11211918-2806-0066-0000-051d31815301';
const get = (id: string) => `${SERP_QUEUE_ENDPOINTS.taskGet}/${id}`;

describe('posting SERP tasks', () => {
  it('posts many tasks in one call, at their depth, on their device, normal priority, tagged; each task is recorded at its own cost', async () => {
    replay.answer(SERP_QUEUE_ENDPOINTS.taskPost, { fixture: 'serp_task_post.ok' });
    const meter = new Meter();
    const posted = await adapter().post([task('running shoes'), task('trail running shoes', 20, 'mobile')], meter);
    expect(posted).toEqual([
      { tag: '2026-11-21|US/en#desktop#20#running shoes', id: FIRST },
      { tag: '2026-11-21|US/en#desktop#20#trail running shoes', id: '11211918-2806-0066-0000-051d31815302' },
    ]);
    expect(replay.requests).toHaveLength(1);
    expect(given(replay.requests[0], 'the replay.requests[0]').body).toEqual([
      {
        keyword: 'running shoes',
        location_code: 2840,
        language_code: 'en',
        depth: 20,
        device: 'desktop',
        priority: 1,
        tag: '2026-11-21|US/en#desktop#20#running shoes',
      },
      {
        keyword: 'trail running shoes',
        location_code: 2840,
        language_code: 'en',
        depth: 20,
        // DataForSEO's own default os for a mobile SERP (Android) is left to it: one price either way.
        device: 'mobile',
        priority: 1,
        tag: '2026-11-21|US/en#desktop#20#trail running shoes',
      },
    ]);
    expect(meter.calls).toEqual([
      { provider: 'dataforseo', endpoint: SERP_QUEUE_ENDPOINTS.taskPost, cost_usd: 0.00105 },
      { provider: 'dataforseo', endpoint: SERP_QUEUE_ENDPOINTS.taskPost, cost_usd: 0.00105 },
    ]);
    expect(meter.costUsd).toBe(fixture('serp_task_post.ok').cost);
  });

  it('answers a task the post refused with its code, and whether posting it later may work; a task missing from the answer may be posted again', async () => {
    replay.answer(SERP_QUEUE_ENDPOINTS.taskPost, { fixture: 'serp_task_post.40501-one' });
    const meter = new Meter();
    const posted = await adapter().post(
      [task('running shoes'), task('trail running shoes'), task('not in the answer')],
      meter,
    );
    expect(posted).toEqual([
      { tag: '2026-11-21|US/en#desktop#20#running shoes', id: FIRST },
      {
        tag: '2026-11-21|US/en#desktop#20#trail running shoes',
        error: "40501 Invalid Field: 'depth'.",
        retryable: false,
      },
      { tag: '2026-11-21|US/en#desktop#20#not in the answer', error: 'not in the answer', retryable: true },
    ]);
    expect(meter.costUsd).toBe(0.00105);
  });

  it('throws a retryable ProviderError for a post refused whole (the rate limit), never posting it again itself', async () => {
    replay.answer(SERP_QUEUE_ENDPOINTS.taskPost, { fixture: 'serp_task_post.40202' });
    const refused = adapter().post([task('running shoes')], new Meter());
    await expect(refused).rejects.toMatchObject({ retryable: true, code: 40202 });
    await expect(refused).rejects.not.toBeInstanceOf(UnknownOutcome);
    expect(replay.requests).toHaveLength(1);
  });

  it('throws UnknownOutcome when no answer comes (the tasks may have been posted and billed), and does not post again', async () => {
    replay.hang(SERP_QUEUE_ENDPOINTS.taskPost);
    const meter = new Meter();
    try {
      const posting = adapter(200).post([task('running shoes')], meter);
      await expect(posting).rejects.toBeInstanceOf(UnknownOutcome);
      await expect(posting).rejects.toBeInstanceOf(ProviderError);
    } finally {
      replay.hang(SERP_QUEUE_ENDPOINTS.taskPost, false);
    }
    expect(replay.requests).toHaveLength(1);
    // The post may have been billed: it stays pending at its list price.
    expect(meter.calls).toEqual([
      {
        provider: 'dataforseo',
        endpoint: SERP_QUEUE_ENDPOINTS.taskPost,
        cost_usd: dataForSeoPrice(SERP_QUEUE_ENDPOINTS.taskPost, 20),
        pending: true,
      },
    ]);
  });
});

describe('collecting a task', () => {
  it('is pending while the task is in the queue, then ready with its organic results, positioned by rank_group, cut to the depth', async () => {
    replay.answer(get(FIRST), { fixture: 'serp_task_get.40602' }, { fixture: 'serp_task_get.ok' });
    const meter = new Meter();
    expect(await adapter().collect(FIRST, 20, meter)).toEqual({
      status: 'pending',
      reason: '40602 Task In Queue.',
    });
    const ready = await adapter().collect(FIRST, 5, meter);
    expect(ready.status).toBe('ready');
    if (ready.status !== 'ready') return;
    expect(ready.items.map((item) => [item.position, item.domain])).toEqual([
      [1, 'www.runnersworld.com'],
      [2, 'demo.example.com'],
      [3, 'www.rei.com'],
      [4, 'www.rival-shoes.com'],
      [5, 'en.wikipedia.org'],
    ]);
    // Collecting is free: nothing for the ledger.
    expect(meter.calls).toEqual([]);
    expect(replay.requests.map((r) => r.endpoint)).toEqual([get(FIRST), get(FIRST)]);
  });

  it('fails a task the search engine could not answer (40101: billed at the post, no SERP that day)', async () => {
    replay.answer(get(FIRST), { fixture: 'serp_task_get.40101' });
    expect(await adapter().collect(FIRST, 20, new Meter())).toEqual({
      status: 'failed',
      error: '40101 Search Engine Task Error.',
    });
  });

  it('is pending when the provider does not answer, or answers 5xx: the next delivery tries again', async () => {
    replay.answer(get(FIRST), { fixture: 'http500', status: 500 });
    expect(await adapter().collect(FIRST, 20, new Meter())).toEqual({ status: 'pending', reason: 'HTTP 500' });
  });
});

describe("a task's AI Overview (task_get/advanced: regular results carry none)", () => {
  it('reads the ai_overview item: shown, its references in order (its own, then its elements), each page once (a URL without its passage fragment), a domain from the URL where it names none, one without a URL left out; free to read', async () => {
    replay.answer(get(FIRST), { fixture: 'serp_task_get.ai-overview' });
    const meter = new Meter();
    const ready = await adapter().collect(FIRST, 5, meter);
    expect(ready.status).toBe('ready');
    if (ready.status !== 'ready') return;
    expect(ready.aiOverview).toEqual({
      shown: true,
      references: [
        { domain: 'www.rei.com', url: 'https://www.rei.com/learn/expert-advice/running-shoes.html' },
        { domain: 'www.runnersworld.com', url: 'https://www.runnersworld.com/gear/a19663621/best-running-shoes/' },
        { domain: 'demo.example.com', url: 'https://demo.example.com/articles/running-shoes-guide' },
        { domain: 'www.rival-shoes.com', url: 'https://www.rival-shoes.com/trail-vs-road' },
        { domain: 'www.reddit.com', url: 'https://www.reddit.com/r/running/comments/abc123/' },
      ],
      references_loaded: true,
    });
    // The organic results are read as before: the overview takes no place among them.
    expect(ready.items.map((item) => item.position)).toEqual([1, 2, 3, 4, 5]);
    expect(meter.calls).toEqual([]);
  });

  it('records an overview Google loaded after the page as shown, its citations not loaded (the post asks for no load_async_ai_overview: no extra charge)', async () => {
    replay.answer(get(FIRST), { fixture: 'serp_task_get.ai-overview-async' });
    const ready = await adapter().collect(FIRST, 20, new Meter());
    expect(ready).toMatchObject({
      status: 'ready',
      aiOverview: { shown: true, references: [], references_loaded: false },
    });
  });

  it('records a SERP without an ai_overview item as showing none', async () => {
    replay.answer(get(FIRST), { fixture: 'serp_task_get.ok' });
    const ready = await adapter().collect(FIRST, 20, new Meter());
    expect(ready).toMatchObject({
      status: 'ready',
      aiOverview: { shown: false, references: [], references_loaded: true },
    });
  });
});
