import { BACKLINK_ENDPOINTS, ENDPOINTS, SERP_QUEUE_ENDPOINTS } from '@cm/providers';
import { fakeClock } from '../helpers/clock';
import { startTestStack, type TestStack } from '../helpers/local';
import { dataforseoEnv, fixture, type Replay, startReplay } from '../helpers/replay';
import { apiClient, given, variant } from '../helpers/client';

/* The local stack with DataForSEO credentials: the tools call the real adapters, which reach only the replay server. */

let t: TestStack;
let replay: Replay;

beforeAll(async () => {
  replay = await startReplay();
  t = await startTestStack({ env: dataforseoEnv(replay) });
}, 60_000);
afterAll(async () => {
  await t.stop();
  await replay.close();
});

const client = () => apiClient(t);

describe('tools on DataForSEO (recorded responses)', () => {
  it('pulls keyword metrics, labels them dataforseo, and records both calls at their cost', async () => {
    replay.answer(ENDPOINTS.searchVolume, { fixture: 'search_volume.ok' });
    replay.answer(ENDPOINTS.searchIntent, { fixture: 'search_intent.ok' });
    const topic = await client().tool('db_insert', { table: 'cm_topics', row: { name: 'Running' } });
    const reply = await client().tool('get_keywords', {
      topic_id: topic.body.row.id,
      seeds: ['running shoes', 'trail running shoes', 'zzqx running'],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      data_source: 'dataforseo',
      cost_usd: 0.0762,
      cached: false,
      no_data: ['zzqx running'],
    });
    const byKeyword = Object.fromEntries(reply.body.keywords.map((row) => [row.keyword, row]));
    expect(byKeyword['running shoes']).toMatchObject({
      volume: 201000,
      cpc_usd: 1.87,
      competition: 1,
      intent: 'commercial',
      data_source: 'dataforseo',
    });
    expect(byKeyword['zzqx running']).toMatchObject({ volume: 0, cpc_usd: null });

    const usage = await client().route('GET /v1/usage');
    expect(usage.body.by_tool).toContainEqual({
      tool: 'get_keywords',
      provider: 'dataforseo',
      calls: 2,
      cost_usd: 0.0762,
    });
    // Both calls reserved their list price first and settled to the billed cost: nothing stays reserved.
    expect(reply.body.budget).toEqual({ remaining_usd: null, window: null });
    expect((await client().route('GET /v1/budget')).body.daily).toMatchObject({
      spent_usd: 0.0762,
      reserved_usd: 0,
      simulated_usd: 0,
    });
  });

  it('refreshes a SERP: organic results only, the site and tracked competitors left out of untracked_competitors', async () => {
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    await client().tool('db_insert', { table: 'cm_competitors', row: { domain: 'rival-shoes.com' } });
    const reply = await client().tool('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ data_source: 'dataforseo', cost_usd: 0.0035, quota: { used: 1 } });
    expect(reply.body.row.items).toHaveLength(6);
    expect(reply.body.untracked_competitors).toEqual(['runnersworld.com', 'rei.com', 'en.wikipedia.org', 'nike.com']);
    const sent = given(replay.requests.filter((r) => r.endpoint === ENDPOINTS.serpOrganic).at(-1), 'the item');
    expect(sent.body).toEqual([
      { keyword: 'running shoes', location_code: 2840, language_code: 'en', depth: 20, device: 'desktop' },
    ]);
  });

  it('gives the refresh unit back when the provider call fails, billed or not, and answers 502 provider_error', async () => {
    const usedBefore = 1;
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.40101' });
    const billed = await client().toolError('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(billed.status).toBe(502);
    expect(billed.body).toMatchObject({ error: 'provider_error', provider: 'dataforseo', retryable: true });
    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'search_volume.40210' });
    const funds = await client().toolError('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(funds.status).toBe(502);
    expect(funds.body).toMatchObject({ error: 'provider_error', retryable: false });
    expect(funds.body.message).toContain('40210');

    replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
    const next = await client().tool('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(next.body.quota.used).toBe(usedBefore + 1);
    // The billed failure is in the ledger at its cost; the unbilled one at 0.
    const usage = await client().route('GET /v1/usage');
    expect(usage.body.by_tool).toContainEqual({
      tool: 'serp_keyword_refresh',
      provider: 'dataforseo',
      calls: 4,
      cost_usd: 0.009,
    });
  });

  it("answers another site's list of a SERP refreshed today from the shared cache: no DataForSEO request, a $0 cached line", async () => {
    // One day for both calls (the cache keeps a datum per UTC day), however slow the machine: the clock held at noon.
    const noon = Date.parse(`${new Date().toISOString().slice(0, 10)}T12:00:00.000Z`);
    fakeClock(noon);
    try {
      replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
      const refreshed = await client().tool('serp_keyword_refresh', { keyword: 'trail running shoes' });
      expect(refreshed.status).toBe(200);
      const pulls = () => replay.requests.filter((r) => r.endpoint === ENDPOINTS.serpOrganic).length;
      const before = pulls();
      const other = await t.newSite('Shared SERP', { domain: 'other-shoes.example.com', locale: 'US/en' });
      const otherClient = apiClient(t, other.key);
      const listed = await otherClient.tool('serp_landscape', { keyword: 'trail running shoes', depth: 'list' });
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ data_source: 'dataforseo', cost_usd: 0, cached: true });
      expect(pulls()).toBe(before);
      // A real SERP is every site's as it is: the same organic results, fetched when the refresh pulled them.
      expect(await t.store.serps.get(other.siteId, 'US/en', 'trail running shoes')).toEqual(refreshed.body.row);
      const usage = await otherClient.route('GET /v1/usage', { query: { to: new Date(noon + 1000).toISOString() } });
      expect(usage.body.by_tool).toEqual([
        { tool: 'serp_landscape', provider: 'dataforseo', calls: 1, cost_usd: 0, cached_calls: 1 },
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('looks up a domain whose backlink trend has an undated point: the tool answers, the point left out, every call billed', async () => {
    replay.answer(BACKLINK_ENDPOINTS.summary, { fixture: 'backlinks_summary.ok' });
    replay.answer(BACKLINK_ENDPOINTS.timeseries, { fixture: 'backlinks_timeseries.null-date' });
    replay.answer(BACKLINK_ENDPOINTS.anchors, { fixture: 'backlinks_anchors.ok' });
    replay.answer(BACKLINK_ENDPOINTS.backlinks, { fixture: 'backlinks_backlinks.ok' });
    replay.answer(BACKLINK_ENDPOINTS.referringDomains, { fixture: 'backlinks_referring_domains.ok' });
    replay.answer(BACKLINK_ENDPOINTS.domainIntersection, { fixture: 'backlinks_domain_intersection.ok' });
    const reply = await client().tool('serp_backlinks', { scope: 'trailstride.com', trend_months: 36 });
    expect(reply.status).toBe(200);
    // Five profile calls and the gap against the demo site, at their recorded costs.
    expect(reply.body).toMatchObject({ data_source: 'dataforseo', depth: 'overview', cost_usd: 0.12174 });
    const overview = variant(reply.body, 'depth', 'overview');
    expect(overview.profiles[0]).toMatchObject({ domain: 'trailstride.com', summary: { backlinks: 4812 } });
    const months = given(overview.trend[0], 'the trend').points.map((p) => p.month);
    expect(months.length).toBeGreaterThan(0);
    for (const month of months) expect(month).toMatch(/^\d{4}-\d{2}$/);
    expect(new Set(months).size).toBe(months.length);
  });

  it("tracks rankings on the SERP standard queue: one post of the day's checks, each collected once ready (a task still in the queue has its message delivered again), and nothing paid twice", async () => {
    // The day the recorded tasks were tagged with (a tag names the day and the SERP: locale, device, depth, keyword).
    fakeClock(Date.parse('2026-11-21T09:00:00.000Z'));
    try {
      const topic = (await client().tool('db_insert', { table: 'cm_topics', row: { name: 'Rank on DataForSEO' } })).body
        .row;
      // The recorded tasks' keywords (stored already when the first test ran: 409 names the row).
      for (const keyword of ['running shoes', 'trail running shoes']) {
        // A raw call: answered or refused as the file's earlier tests left the table.
        const inserted = await t.call('POST', '/v1/tools/db_insert', {
          table: 'cm_keywords',
          row: { keyword, volume: 1000 },
        });
        const id = inserted.status === 409 ? inserted.body.id : inserted.body.row.id;
        await client().tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topic.id, keyword_id: id } });
      }
      replay.answer(SERP_QUEUE_ENDPOINTS.taskPost, { fixture: 'serp_task_post.ok' });
      const [first, second] = fixture('serp_task_post.ok').tasks.map((task: { id: string }) => task.id);
      replay.answer(
        `${SERP_QUEUE_ENDPOINTS.taskGet}/${first}`,
        { fixture: 'serp_task_get.40602' },
        { fixture: 'serp_task_get.ok' },
      );
      replay.answer(`${SERP_QUEUE_ENDPOINTS.taskGet}/${second}`, { fixture: 'serp_task_get.ok' });
      replay.requests.length = 0;

      // The recorded answer is of desktop tasks (tagged with their desktop SERPs' identity).
      const tracked = await client().tool('track_rankings', {
        topic_id: topic.id,
        cadence: 'daily',
        device: 'desktop',
      });
      expect(tracked.body).toMatchObject({ first_check: { queued: 2, deferred: 0 }, depth: 20 });
      await t.stack.drain();
      // One post; the first task read twice (in the queue, then ready), the second once: a delivery again skips what is stored.
      // (The two reads of a delivery run at once, in either order.)
      expect(given(replay.requests[0], 'the replay.requests[0]').endpoint).toBe(SERP_QUEUE_ENDPOINTS.taskPost);
      // The tracking's device is what the tasks ask DataForSEO for.
      expect(given(replay.requests[0], 'the replay.requests[0]').body).toMatchObject([
        { device: 'desktop' },
        { device: 'desktop' },
      ]);
      expect(
        replay.requests
          .slice(1)
          .map((r) => r.endpoint)
          .sort(),
      ).toEqual([
        `${SERP_QUEUE_ENDPOINTS.taskGet}/${first}`,
        `${SERP_QUEUE_ENDPOINTS.taskGet}/${first}`,
        `${SERP_QUEUE_ENDPOINTS.taskGet}/${second}`,
      ]);
      const history = given(
        (await client().tool('serp_landscape', { topic_id: topic.id, history_days: 1 })).body.history,
        'the history',
      );
      expect(history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 2, failed: [] });
      expect(history.keywords.find((k) => k.keyword === 'running shoes')?.positions).toMatchObject({
        'demo.example.com': [2],
      });
      // (The fake clock stands still: the window names its end.)
      const usage = (
        await client().route('GET /v1/usage', {
          query: { from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' },
        })
      ).body.by_tool;
      expect(usage).toContainEqual({ tool: 'rank_tracking', provider: 'dataforseo', calls: 2, cost_usd: 0.0021 });
      // The day's schedule (monitoring too) claims no check anew: no post, no read of a SERP task.
      await t.stack.runSchedule();
      await t.stack.drain();
      expect(replay.requests.filter((r) => r.endpoint.startsWith('serp/'))).toHaveLength(4);
    } finally {
      jest.useRealTimers();
    }
  });
});
