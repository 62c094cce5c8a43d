import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ctrAt, daysEndingOn } from '@cm/core';
import { Meter, ProviderError, rankCheckPrice, type SerpTask, type SerpTaskQueue } from '@cm/providers';
import { runRankChecks, type SiteBudget } from '@cm/tools';
import { rowKey } from '../../packages/store/src/keys';
import { given, type ToolAnswer, type ToolArgs } from '../helpers/client';
import { fakeClock } from '../helpers/clock';
import { article, siteClient, startTestStack, warmKeyCheck, type SiteClient, type TestStack } from '../helpers/local';

/*
 * Rank tracking on the local stack, offline: track_rankings turns a topic's or a page's tracking on,
 * the daily schedule (run as of each of 30 days) checks each tracked keyword once a day through the
 * sandbox's standard queue, and serp_landscape history_days reads the positions, share of voice,
 * winners and losers and the published page's own positions back. SANDBOX_LIST_PRICES=1: the checks
 * cost DataForSEO's list price, marked simulated, so the budget and the ledger can be checked.
 */

/**
 * Today, for the whole file: the clock is held at its noon (UTC) once the stack runs, so what the
 * service dates by its clock (track_rankings' first check, `since`) and the days the tests name agree,
 * however long the file runs, across midnight too.
 */
const TODAY = new Date().toISOString().slice(0, 10);

let t: TestStack;
let monitorRuns = 0;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
  fakeClock(Date.parse(`${TODAY}T12:00:00.000Z`));
  // The daily schedule plans monitoring too: its runs are not what these tests look at (monitoring.test.ts does).
  jest.spyOn(t.stack.queues.monitor, 'send').mockImplementation(() => {
    monitorRuns++;
    return Promise.resolve();
  });
}, 60_000);
afterAll(() => {
  jest.useRealTimers();
  return t.stop();
});

const PRICE = rankCheckPrice(20);

type Landscape = ToolAnswer<'serp_landscape', ToolArgs<'serp_landscape'>>;
/** The schedule as EventBridge fires it on `day`, and everything it queues, to the end. */
async function scheduleOn(day: string) {
  await t.stack.runSchedule(new Date(`${day}T06:00:00.000Z`));
  await t.stack.drain();
}

/**
 * Stops every site's tracking so far (beneath the API, as cadence off does): a test that runs the
 * schedule over many days then pays for its own sites' checks alone, not again for every earlier test's,
 * as each schedule checks every site that tracks.
 */
async function untrackEarlierSites() {
  const last = await t.store.sites.lastId();
  for (let siteId = 1; siteId <= last; siteId++)
    for (const scope of (await t.store.ranks.tracking(siteId)).scopes) await t.store.ranks.untrack(siteId, scope);
}

/** The site's ledger of rank checks: lines, those the shared cache answered (another site of the stack paid), and their (simulated) cost. */
async function rankLedger(s: SiteClient) {
  const report = (
    await s.client.route('GET /v1/usage', {
      query: { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' },
    })
  ).body;
  const lines = report.by_tool.filter((line: { tool: string }) => line.tool === 'rank_tracking');
  return {
    calls: lines.reduce((sum: number, line: { calls: number }) => sum + line.calls, 0),
    cached: lines.reduce((sum: number, line: { cached_calls?: number }) => sum + (line.cached_calls ?? 0), 0),
    cost: lines.reduce((sum: number, line: { cost_usd: number }) => sum + line.cost_usd, 0),
  };
}

/** serp_landscape's history of a scope, which it answers with `history_days`. */
async function historyOf(s: SiteClient, input: ToolArgs<'serp_landscape'>) {
  return given((await s.client.tool('serp_landscape', input)).body.history, 'a history');
}

/** A topic with committed keywords (metrics pulled, so each has a row and a volume). */
async function topicWith(s: SiteClient, name: string, seeds: string[]) {
  const topic = (await s.client.tool('db_insert', { table: 'cm_topics', row: { name } })).body.row;
  await s.client.tool('get_keywords', { topic_id: topic.id, seeds });
  return topic.id;
}

describe('track_rankings', () => {
  it('refuses what it cannot do: cadence without a scope, both scopes, max_keywords on a page, a scope without cadence, an odd depth; a missing topic is 404', async () => {
    const s = await siteClient(t, 'refusals', { domain: 'refusals.example.com', locale: 'US/en' });
    for (const body of [
      { cadence: 'daily' },
      { topic_id: 1, page_id: 1, cadence: 'daily' },
      { page_id: 1, cadence: 'daily', max_keywords: 5 },
      { topic_id: 1 },
      { depth: 25 },
      { depth: 110 },
      { topic_id: 1, cadence: 'hourly' },
      { topic_id: 1, cadence: 'daily', max_keywords: 501 },
    ])
      expect((await s.tool('track_rankings', body)).status).toBe(400);
    // A device the checks would not honour is refused, not silently desktop.
    expect(await s.tool('track_rankings', { topic_id: 1, cadence: 'daily', device: 'mobile' })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', issues: [{ path: 'device', message: expect.stringContaining('desktop') }] },
    });
    expect(await s.tool('track_rankings', { topic_id: 999, cadence: 'daily' })).toMatchObject({
      status: 404,
      body: { code: 'not_found', table: 'cm_topics', id: 999 },
    });
    expect((await s.client.tool('track_rankings', {})).body).toMatchObject({
      tracking: [],
      depth: 20,
      first_check: null,
    });
  });

  it("tracks a topic's committed keywords with rows, never its ideas, answers their cost a month at list prices and checks them at once", async () => {
    const s = await siteClient(t, 'first', { domain: 'first.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Trail running', ['trail running shoes', 'trail shoes', 'hiking boots']);
    // An idea linked to the topic is never tracked.
    const idea = (
      await s.client.tool('db_insert', { table: 'cm_keywords', row: { keyword: 'trail idea', is_idea: true } })
    ).body.row;
    await s.client.tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topicId, keyword_id: idea.id } });

    const tracked = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(tracked.status).toBe(200);
    const keywords = given(tracked.body.tracking[0], 'the tracking').keywords;
    expect(keywords.sort()).toEqual(['hiking boots', 'trail running shoes', 'trail shoes']);
    // ... and says so: a linked idea waits to be committed.
    expect(tracked.body.untracked).toEqual([{ keyword: 'trail idea', reason: expect.stringContaining('an idea') }]);
    expect(tracked.body).toMatchObject({
      tracking: [
        {
          scope: { type: 'topic', id: topicId, name: 'Trail running' },
          cadence: 'daily',
          max_keywords: 50,
          since: TODAY,
          checks_per_month: 90,
          usd_per_month: Math.round(90 * PRICE * 1e6) / 1e6,
        },
      ],
      depth: 20,
      total: { keywords: 3, checks_per_month: 90 },
      first_check: { queued: 3, deferred: 0 },
    });
    await t.stack.drain();
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 3, failed: [] });
    expect(await rankLedger(s)).toMatchObject({ calls: 3 });
  });

  it('tracks an idea a page names, as the landscape counts it: the page commits it, whatever its row says', async () => {
    const s = await siteClient(t, 'named-idea', { domain: 'named-idea.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Climbing', ['climbing harness']);
    const ideas = ['belay device', 'chalk ball'];
    for (const keyword of ideas) {
      const idea = (await s.client.tool('db_insert', { table: 'cm_keywords', row: { keyword, is_idea: true } })).body
        .row;
      await s.client.tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topicId, keyword_id: idea.id } });
    }
    await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: {
        title: 'Harness',
        topic_id: topicId,
        primary_keyword: 'climbing harness',
        secondary_keywords: ['belay device'],
      },
    });
    const landscape = (await s.client.tool('serp_landscape', { topic_id: topicId })).body.keywords;
    const committed = landscape.filter((k) => !k.is_idea).map((k) => k.keyword);
    const tracked = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(given(tracked.body.tracking[0], 'the tracking').keywords.sort()).toEqual(committed.sort());
    expect(committed.sort()).toEqual(['belay device', 'climbing harness']);
    expect(tracked.body.untracked).toEqual([{ keyword: 'chalk ball', reason: expect.stringContaining('an idea') }]);
    await t.stack.drain();
  });
});

/** The day `n` days after today. */
const later = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('the keywords and the depth it takes', () => {
  it('refuses a keyword with a control character wherever a keyword is stored or checked, naming the field, and stores nothing', async () => {
    const s = await siteClient(t, 'control', { domain: 'control.example.com', locale: 'US/en' });
    const refused = [
      ['db_insert', { table: 'cm_keywords', row: { keyword: 'trail\u0000shoes' } }, 'row.keyword'],
      ['db_insert', { table: 'cm_pages', row: { title: 'P', primary_keyword: 'bell\u0007' } }, 'row.primary_keyword'],
      [
        'db_insert',
        { table: 'cm_pages', row: { title: 'P', secondary_keywords: ['a\tb'] } },
        'row.secondary_keywords[0]',
      ],
      ['serp_landscape', { keyword: 'esc\u001b[0m' }, 'keyword'],
      ['serp_keyword_refresh', { keyword: 'c1\u0085' }, 'keyword'],
    ] as const;
    for (const [tool, body, path] of refused)
      expect(await s.client.toolError(tool, body)).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', issues: [{ path, message: expect.stringContaining('control characters') }] },
      });
    for (const table of ['cm_keywords', 'cm_pages'] as const)
      expect((await s.client.tool('db_select', { table })).body.rows).toEqual([]);
    // A seed of get_keywords is judged on its own: refused with why, the others pulled.
    const pulled = await s.client.tool('get_keywords', { seeds: ['nul\u0000seed', 'clean seed'] });
    expect(pulled.body.rejected_seeds).toEqual([
      { seed: 'nul\u0000seed', reason: expect.stringContaining('control characters') },
    ]);
    // Leading and trailing whitespace is trimmed, as before.
    expect(
      (await s.client.tool('db_insert', { table: 'cm_keywords', row: { keyword: ' tent\n' } })).body.row.keyword,
    ).toBe('tent');
  });

  it('never checks a keyword with a control character stored before they were refused: listed in untracked with why', async () => {
    const s = await siteClient(t, 'control-stored', { domain: 'control-stored.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Stoves', ['camp stove', 'gas canister']);
    const pageId = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: {
          title: 'Stoves',
          topic_id: topicId,
          primary_keyword: 'camp stove',
          secondary_keywords: ['gas canister'],
        },
      })
    ).body.row.id;
    // As stored before the refusal: the keyword's row, and the page's secondary keyword, with a NUL.
    const rows = (await s.client.tool('db_select', { table: 'cm_keywords' })).body.rows;
    const canister = given(
      rows.find((row) => row.keyword === 'gas canister'),
      'the row of gas canister',
    );
    for (const [key, change] of [
      [rowKey(s.siteId, 'cm_keywords', canister.id), { keyword: 'gas\u0000canister' }],
      [rowKey(s.siteId, 'cm_pages', pageId), { secondary_keywords: ['gas\u0000canister'] }],
    ] as const) {
      const stored = given(
        (await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key: key }))).Item,
        'the Item',
      );
      await t.db.send(
        new PutCommand({ TableName: t.stack.tableName, Item: { ...stored, row: { ...stored.row, ...change } } }),
      );
    }
    const untracked = [{ keyword: 'gas\u0000canister', reason: expect.stringContaining('control characters') }];
    for (const scope of [{ topic_id: topicId }, { page_id: pageId }]) {
      const tracked = await s.client.tool('track_rankings', { ...scope, cadence: 'daily' });
      expect(tracked.body.untracked).toEqual(untracked);
    }
    expect((await s.client.tool('track_rankings', {})).body.tracking.map((e) => e.keywords)).toEqual([
      ['camp stove'],
      ['camp stove'],
    ]);
    await t.stack.drain();
    await scheduleOn(later(1));
    // Only the clean keyword is paid for, today and the next day.
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    expect((await t.store.ranks.latest(s.siteId, 'US/en', 'gas\u0000canister', 2)).rows).toEqual([]);
  });

  it('checks at every depth it accepts: at the top 100 each check is paid for and stored, none dead-lettered', async () => {
    const s = await siteClient(t, 'deep', { domain: 'deep.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Deep', ['dry bag', 'head torch']);
    const tracked = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily', depth: 100 });
    expect(tracked.body).toMatchObject({ depth: 100, first_check: { queued: 2, deferred: 0 } });
    await t.stack.drain();
    for (const queue of Object.values(t.stack.queues)) expect(queue.deadLetters).toEqual([]);
    const ledger = await rankLedger(s);
    expect(ledger).toMatchObject({ calls: 2 });
    expect(ledger.cost).toBeCloseTo(2 * rankCheckPrice(100), 6);
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.coverage).toMatchObject({ days_with_data: 1, keywords_with_data: 2 });
    for (const keyword of ['dry bag', 'head torch']) {
      const { rows } = await t.store.ranks.latest(s.siteId, 'US/en', keyword, 1);
      expect(rows[0]).toMatchObject({ depth: 100 });
    }
  });
});

describe('thirty days of checks', () => {
  // As the README's quick start builds a history on one machine: tracking begins today, and the schedule
  // runs as of each of the next 29 days; the history ends on the last day checked.
  const DAYS = daysEndingOn(later(29), 30);
  const SEEDS = ['running shoes', 'trail running shoes', 'marathon training', 'running socks', 'road running tips'];
  let s: SiteClient;
  let neighbour: SiteClient;
  let topicId: number;
  let pageId: number;
  let history: NonNullable<Landscape['history']>;
  let landscape: Landscape;

  beforeAll(async () => {
    await untrackEarlierSites();
    // A site that checks one of these keywords each day too: one of the two sites' posts answers both.
    neighbour = await siteClient(t, 'neighbour', { domain: 'neighbour.example.com', locale: 'US/en' });
    const sharedId = await topicWith(neighbour, 'Roads', ['road running tips']);
    await neighbour.client.tool('track_rankings', { topic_id: sharedId, cadence: 'daily' });
    await t.stack.drain();
    s = await siteClient(t, 'thirty', { domain: 'runners-hub.example.com', locale: 'US/en' });
    topicId = await topicWith(s, 'Running', SEEDS);
    await s.client.tool('add_competitor', { domain: 'rival-one.com', color: '#ff0000' });
    await s.client.tool('add_competitor', { domain: 'rival-two.com' });
    // A published article, named by a cm_pages row of the topic that targets one of its keywords.
    const published = await s.client.route('POST /articles', { body: article('running-shoes-guide') });
    const page = await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: {
        title: 'Running shoes guide',
        topic_id: topicId,
        primary_keyword: 'running shoes',
        published_id: published.body.id,
      },
    });
    pageId = page.body.row.id;
    await t.stack.drain();
    expect((await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' })).body.first_check).toEqual({
      queued: SEEDS.length,
      deferred: 0,
    });
    await t.stack.drain();
    for (const day of DAYS) await scheduleOn(day);
    landscape = (await s.client.tool('serp_landscape', { topic_id: topicId, history_days: 30 })).body;
    history = given(landscape.history, 'a history');
  }, 240_000);

  it("checks each keyword once a day: 30 days with data, each keyword on each day, the ledger at the list price × the checks it posted, $0 for those another site's post answered (none twice)", async () => {
    // (Monitoring's runs were planned beside the checks, and held.)
    expect(monitorRuns).toBeGreaterThan(30);
    expect(history.days).toEqual(DAYS);
    expect(history.coverage).toEqual({ days: 30, days_with_data: 30, keywords_with_data: SEEDS.length, failed: [] });
    const ledger = await rankLedger(s);
    expect(ledger.calls).toBe(30 * SEEDS.length);
    // Another site's post answered some checks at $0: the keyword the neighbour checks too was paid by one of
    // the two each day (and earlier tests' sites had checked a few of these keywords on a day or two).
    expect(ledger.cost).toBeCloseTo((30 * SEEDS.length - ledger.cached) * PRICE, 6);
    const shared = await rankLedger(neighbour);
    expect(shared.calls).toBe(30);
    expect(shared.cost).toBeCloseTo((30 - shared.cached) * PRICE, 6);
    expect(ledger.cached + shared.cached).toBeGreaterThanOrEqual(30);
    // A second schedule of a day already checked pays nothing.
    await scheduleOn(given(DAYS[10], 'the DAYS[10]'));
    expect((await rankLedger(s)).calls).toBe(30 * SEEDS.length);
  });

  it("reads the history with one Query per keyword's range of days and one batch read of the published pages, never a scan", async () => {
    const counted = async (body: object) => {
      await warmKeyCheck(t, s.key);
      const recording = t.stack.dynamo.record();
      expect((await s.client.tool('serp_landscape', body)).status).toBe(200);
      recording.stop();
      const operations: Record<string, number> = {};
      for (const op of recording.operations()) operations[op] = (operations[op] ?? 0) + 1;
      return operations;
    };
    const without = await counted({ topic_id: topicId });
    const withHistory = await counted({ topic_id: topicId, history_days: 30 });
    expect((withHistory.Query ?? 0) - (without.Query ?? 0)).toBe(SEEDS.length);
    expect((withHistory.BatchGetItem ?? 0) - (without.BatchGetItem ?? 0)).toBe(1);
    expect(withHistory.Scan).toBeUndefined();
  });

  it("has each keyword's positions of the site and each tracked competitor per day, moving a few places at most from one day to the next", () => {
    const domains = ['runners-hub.example.com', 'rival-one.com', 'rival-two.com'];
    let moved = 0;
    for (const keyword of history.keywords) {
      expect(Object.keys(keyword.positions).sort()).toEqual([...domains].sort());
      for (const series of Object.values<(number | null)[]>(keyword.positions)) {
        expect(series).toHaveLength(30);
        for (let i = 1; i < series.length; i++) {
          const [a, b] = [series[i - 1], series[i]];
          if (a != null && b != null) {
            expect(Math.abs(a - b)).toBeLessThanOrEqual(4);
            if (a !== b) moved++;
          }
        }
      }
    }
    expect(moved).toBeGreaterThan(10);
  });

  it('has each domain’s share of voice per day as visibility: Σ CTR(position) × volume, and its share of the volume checked', () => {
    const volumes = new Map(landscape.keywords.map((k) => [k.keyword, k.volume ?? 0]));
    const volumeOf = (keyword: string) => given(volumes.get(keyword), `the volume of ${keyword}`);
    const total = history.keywords.reduce((sum, k) => sum + volumeOf(k.keyword), 0);
    const site = given(
      history.visibility.find((v) => v.is_site),
      "the site's visibility",
    );
    const rival = given(
      history.visibility.find((v) => v.domain === 'rival-one.com'),
      "rival-one.com's visibility",
    );
    expect(rival.color).toBe('#ff0000');
    for (const entry of [site, rival]) {
      for (let i = 0; i < 30; i++) {
        const clicks = history.keywords.reduce((sum, k) => {
          const position = given(k.positions[entry.domain], `${entry.domain}'s positions`)[i];
          if (position === undefined) throw new Error(`no day ${i} in ${entry.domain}'s positions`);
          return sum + (position === null ? 0 : ctrAt(position) * volumeOf(k.keyword));
        }, 0);
        expect(entry.clicks[i]).toBeCloseTo(clicks, 1);
        expect(entry.sov[i]).toBeCloseTo(clicks / total, 3);
      }
    }
    // Other domains that rank are in too, the strongest first after the tracked ones.
    expect(history.visibility.length).toBeGreaterThan(3);
  });

  it('names the winners and losers: keywords whose position moved most, domains whose visibility moved most', () => {
    const site = 'runners-hub.example.com';
    for (const move of [...history.winners, ...history.losers]) {
      const series = given(history.keywords.find((k) => k.keyword === move.keyword)?.positions[site], move.keyword);
      const known = series.filter((p) => p !== null);
      expect(move.change).not.toBe(0);
      if (move.from !== null) expect(move.from).toBe(known[0]);
      if (move.to !== null) expect(move.to).toBe(known[known.length - 1]);
    }
    expect(history.winners.every((m) => m.change > 0)).toBe(true);
    expect(history.losers.every((m) => m.change < 0)).toBe(true);
    const changes = history.winners.map((m) => m.change);
    expect(changes).toEqual([...changes].sort((a, b) => b - a));
    for (const move of [...history.domains_up, ...history.domains_down]) {
      const clicks = given(
        history.visibility.find((v) => v.domain === move.domain),
        move.domain,
      ).clicks.filter((c) => c !== null);
      expect(move.change).toBeCloseTo(
        given(clicks.at(-1), 'the last clicks') - given(clicks[0], 'the first clicks'),
        1,
      );
    }
    expect(history.winners.length + history.losers.length + history.domains_up.length).toBeGreaterThan(0);
  });

  it("has the published page's own URL's position per day for its keyword: on the days it ranks with that page, the site's position", () => {
    expect(history.pages).toHaveLength(1);
    const page = given(history.pages[0], 'the page');
    expect(page).toMatchObject({
      page_id: pageId,
      title: 'Title of running-shoes-guide',
      url: 'https://runners-hub.example.com/articles/running-shoes-guide',
    });
    expect(page.keywords.map((k) => k.keyword)).toEqual(['running shoes']);
    const own = given(page.keywords[0], "the page's keyword").positions;
    const site = given(
      history.keywords.find((k) => k.keyword === 'running shoes')?.positions['runners-hub.example.com'],
      "the site's positions for running shoes",
    );
    const ranked = own.filter((p) => p !== null).length;
    // Now and then: some days with the page, some with another of the site's pages (or none).
    expect(ranked).toBeGreaterThan(0);
    expect(ranked).toBeLessThan(30);
    own.forEach((p, i) => {
      if (p !== null) expect(p).toBe(site[i]);
    });
  });
});

describe('what stops tracking', () => {
  beforeAll(untrackEarlierSites);

  it('cadence off, deleting the topic, the page or a keyword: the next day’s checks leave them out', async () => {
    const s = await siteClient(t, 'stops', { domain: 'stops.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Stops', ['tent pegs', 'camping stove']);
    const otherId = await topicWith(s, 'Other', ['sleeping bag']);
    const page = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Stove page', primary_keyword: 'camping stove' },
      })
    ).body.row;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { topic_id: otherId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: page.id, cadence: 'daily' });
    await t.stack.drain();
    const checks = async () => (await rankLedger(s)).calls;
    expect(await checks()).toBe(3);

    const days = daysEndingOn(TODAY, 4).map((d) =>
      new Date(Date.parse(`${d}T00:00:00Z`) + 4 * 86_400_000).toISOString().slice(0, 10),
    );
    await scheduleOn(given(days[0], 'the days[0]'));
    expect(await checks()).toBe(6);

    // The other topic off; a keyword of the first topic deleted (its link goes with it).
    await s.client.tool('track_rankings', { topic_id: otherId, cadence: 'off' });
    const pegs = given(
      (await s.client.tool('db_select', { table: 'cm_keywords', where: { keyword: 'tent pegs' } })).body.rows[0],
      'the row of tent pegs',
    );
    await s.client.tool('db_delete', { table: 'cm_keywords', id: pegs.id });
    await scheduleOn(given(days[1], 'the days[1]'));
    expect(await checks()).toBe(7); // camping stove, once for the topic and the page both

    await s.client.tool('db_delete', { table: 'cm_pages', id: page.id });
    await s.client.tool('db_delete', { table: 'cm_topics', id: topicId });
    expect((await s.client.tool('track_rankings', {})).body.tracking).toEqual([]);
    // Their tracking went with them, not only out of the listing.
    expect((await t.store.ranks.tracking(s.siteId)).scopes).toEqual([]);
    await scheduleOn(given(days[2], 'the days[2]'));
    expect(await checks()).toBe(7);
  });

  it('checks a weekly scope on the weekday tracking began', async () => {
    const s = await siteClient(t, 'weekly', { domain: 'weekly.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Weekly', ['kayak paddle']);
    expect(
      (await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'weekly' })).body.tracking[0],
    ).toMatchObject({
      cadence: 'weekly',
      checks_per_month: Math.round((30 / 7) * 100) / 100,
    });
    await t.stack.drain();
    for (let n = 1; n <= 14; n++) await scheduleOn(later(n));
    expect((await rankLedger(s)).calls).toBe(3); // today, a week on, two weeks on
  });
});

describe('what a check pays', () => {
  beforeAll(untrackEarlierSites);

  it("holds the day's checks to the budget: as many as fit are posted, the rest skipped and counted, not queued; with room again, they are checked", async () => {
    const s = await siteClient(t, 'budget', { domain: 'budget.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Budget', ['rain jacket', 'down jacket', 'fleece jacket', 'ski jacket']);
    // Room for two checks and a half, beside what the keyword metrics spent.
    const spent = (await s.call('GET', '/v1/budget')).body.daily.spent_usd;
    await s.call('PUT', '/v1/budget', { daily_usd: Math.round((spent + PRICE * 2.5) * 1e6) / 1e6 });
    const tracked = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(tracked.body.first_check).toEqual({ queued: 2, deferred: 2 });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    // The day's schedule finds no room: nothing posted, nothing left queued.
    await scheduleOn(TODAY);
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    for (const queue of Object.values(t.stack.queues)) expect(queue.deadLetters).toEqual([]);
    const budget = (await s.call('GET', '/v1/budget')).body.daily;
    expect(budget.spent_usd + budget.reserved_usd).toBeLessThanOrEqual(budget.limit_usd);
    // With room, the same day's schedule checks the two left, and only those.
    await s.call('PUT', '/v1/budget', { daily_usd: 1 });
    await scheduleOn(TODAY);
    const ledger = await rankLedger(s);
    expect(ledger.calls).toBe(4);
    expect(ledger.cost).toBeCloseTo(4 * PRICE, 6);
  });

  it('pays nothing for a redelivered message, and nothing for a keyword whose SERP list pulled that day', async () => {
    const s = await siteClient(t, 'listed', { domain: 'listed.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Listed', ['climbing rope', 'climbing shoes', 'chalk bag']);
    expect((await s.client.tool('serp_landscape', { keyword: 'chalk bag', depth: 'list' })).body.list?.fetched).toEqual(
      ['chalk bag'],
    );
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    const message = JSON.stringify({ site_id: s.siteId, day: TODAY, requested_at: new Date().toISOString() });
    await t.stack.queues.rank.send(message);
    await t.stack.queues.rank.send(message);
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 3, failed: [] });
  });

  it('prices turning tracking on as a month of checks (estimate: true), and asks for approval above confirm_above_usd', async () => {
    const s = await siteClient(t, 'priced', { domain: 'priced.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Priced', ['paddle board', 'wetsuit']);
    const estimate = await s.client.tool('track_rankings', {
      topic_id: topicId,
      cadence: 'daily',
      depth: 30,
      estimate: true,
    });
    const unit = rankCheckPrice(30);
    expect(estimate.body).toMatchObject({
      estimate: true,
      tool: 'track_rankings',
      data_source: 'sandbox',
      calls: [{ provider: 'sandbox', endpoint: 'serp_task_post', count: 60, unit_usd: unit }],
      total_usd: Math.round(60 * unit * 1e6) / 1e6,
      approval_required: false,
    });
    // Nothing was set.
    expect((await s.client.tool('track_rankings', {})).body).toMatchObject({ tracking: [], depth: 20 });
    expect(
      (await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'off', estimate: true })).body.total_usd,
    ).toBe(0);

    await s.call('PUT', '/v1/budget', { confirm_above_usd: 0.01 });
    const asked = await s.client.toolError('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(asked).toMatchObject({ status: 428, body: { code: 'approval_required' } });
    expect((await s.client.tool('track_rankings', {})).body.tracking).toEqual([]);
    const confirmed = await s.client.tool('track_rankings', {
      topic_id: topicId,
      cadence: 'daily',
      confirm: String(asked.body.confirm),
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.tracking).toHaveLength(1);
    // Stopping commits to nothing, and asks for nothing.
    expect((await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'off' })).body.tracking).toEqual([]);
    await t.stack.drain();
  });

  it("keeps a page's tracking beside its topic's: each keyword checked once a day, at the most frequent cadence", async () => {
    const s = await siteClient(t, 'shared', { domain: 'shared.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Shared', ['tent', 'tarp']);
    const page = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Tent page', topic_id: topicId, primary_keyword: 'tent', secondary_keywords: ['bivvy bag'] },
      })
    ).body.row;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'weekly' });
    const both = await s.client.tool('track_rankings', { page_id: page.id, cadence: 'daily' });
    // bivvy bag has no keyword row: not tracked, and said so.
    expect(both.body.untracked).toEqual([
      { keyword: 'bivvy bag', reason: expect.stringContaining('no cm_keywords row') },
    ]);
    expect(both.body.total).toMatchObject({ keywords: 2, checks_per_month: 30 + Math.round((30 / 7) * 100) / 100 });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
  });
});

describe('a run that fails says so', () => {
  beforeAll(untrackEarlierSites);

  afterAll(() => {
    // The runs failed here on purpose were dead-lettered: no other test's business.
    for (const queue of Object.values(t.stack.queues)) queue.deadLetters.splice(0);
  });

  /** A published article's cm_pages row in the topic, targeting `keyword`. */
  async function publishedPage(s: SiteClient, topicId: number, slug: string, keyword: string) {
    const published = await s.call('POST', '/articles', article(slug));
    const page = await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: { title: slug, topic_id: topicId, primary_keyword: keyword, published_id: published.body.id },
    });
    return page.body.row.id;
  }
  const lastRuns = async (s: SiteClient) =>
    Object.fromEntries(
      (await s.client.tool('track_rankings', {})).body.tracking.map((e) => [
        `${e.scope.type} ${e.scope.id}`,
        e.last_run,
      ]),
    );

  it("checks a topic and one of its published pages, both tracked, each keyword once: no scope's run fails", async () => {
    const s = await siteClient(t, 'overlap', { domain: 'overlap.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Overlap', ['cycling gloves', 'cycling socks']);
    const pageId = await publishedPage(s, topicId, 'cycling-gloves', 'cycling gloves');
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: pageId, cadence: 'daily' });
    await t.stack.drain();
    const day = later(1);
    await scheduleOn(day);
    expect(t.stack.queues.rank.deadLetters).toEqual([]);
    expect(await rankLedger(s)).toMatchObject({ calls: 4 });
    expect(await lastRuns(s)).toEqual({
      [`topic ${topicId}`]: expect.objectContaining({ day, status: 'ok' }),
      [`page ${pageId}`]: expect.objectContaining({ day, status: 'ok' }),
    });
    const history = await historyOf(s, { page_id: pageId, history_days: 2 });
    expect(history.coverage).toMatchObject({ days_with_data: 2, failed: [] });
    expect(history.pages).toHaveLength(1);
  });

  it('fails one scope alone: the others are checked, and the tracking and the history name the day it failed and why', async () => {
    const s = await siteClient(t, 'one-bad', { domain: 'one-bad.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Good', ['ski wax']);
    const badTopic = await topicWith(s, 'Bad', ['ski poles']);
    const pageId = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Poles', topic_id: badTopic, primary_keyword: 'ski poles' },
      })
    ).body.row.id;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: pageId, cadence: 'daily' });
    await t.stack.drain();
    // The page's row turns unreadable (its title gone): its scope's keywords cannot be read.
    const key = rowKey(s.siteId, 'cm_pages', pageId);
    const stored = given(
      (await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key: key }))).Item,
      'the Item',
    );
    const { title: _title, ...broken } = stored.row;
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: { ...stored, row: broken } }));
    const day = later(2);
    await scheduleOn(day);
    // The good topic's keyword was checked once, whatever the retries of the message.
    expect(await rankLedger(s)).toMatchObject({ calls: 3 });
    expect(t.stack.queues.rank.deadLetters).toHaveLength(1);
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: stored }));
    expect(await lastRuns(s)).toEqual({
      [`topic ${topicId}`]: expect.objectContaining({ day, status: 'ok' }),
      [`page ${pageId}`]: expect.objectContaining({
        day,
        status: 'failed',
        error: expect.stringContaining('internal error'),
      }),
    });
    const history = await historyOf(s, { page_id: pageId, history_days: 3 });
    expect(history.coverage.failed).toEqual([{ day, error: expect.stringContaining('internal error') }]);
  });

  describe('a run whose provider refuses', () => {
    /** A site's run of `day` on a standard queue that answers with `post`, free (no budget involved). */
    const runOn = (siteId: number, day: string, post: SerpTaskQueue['post']) =>
      runRankChecks(
        {
          store: t.store,
          serpQueue: {
            name: 'refusing',
            postEndpoint: 'post',
            tasksPerPost: 100,
            readySeconds: 0,
            post,
            collect: () => Promise.reject(new Error('not read')),
            placeTracked: (items) => [...items],
          },
          meter: new Meter(),
          now: new Date(),
          budget: {} as SiteBudget,
          enqueue: (name, body) => t.stack.queues[name].send(JSON.stringify(body)),
          checkPriceUsd: () => 0,
        },
        { site_id: siteId, day, requested_at: new Date().toISOString() },
      );

    it('records the checks it refused as partial, the ones refused for good as failed in the history; a post refused whole fails the run, said on the scope', async () => {
      const s = await siteClient(t, 'refusing', { domain: 'refusing.example.com', locale: 'US/en' });
      const topicId = await topicWith(s, 'Refused', ['ice axe', 'crampons', 'gaiters']);
      await t.store.ranks.track(
        s.siteId,
        { type: 'topic', id: topicId },
        { cadence: 'daily', max_keywords: 50 },
        new Date(),
      );
      const day = later(5);
      const answers = (tasks: readonly SerpTask[]) =>
        Promise.resolve(
          tasks.map((task) =>
            task.keyword === 'ice axe'
              ? { tag: task.tag, error: 'invalid field', retryable: false }
              : task.keyword === 'crampons'
                ? { tag: task.tag, error: 'busy', retryable: true }
                : { tag: task.tag, id: `task-${task.keyword}` },
          ),
        );
      const outcome = await runOn(s.siteId, day, answers);
      expect(outcome.posted).toBe(1);
      expect(outcome.refused.map((r) => r.keyword).sort()).toEqual(['crampons', 'ice axe']);
      expect((await lastRuns(s))[`topic ${topicId}`]).toMatchObject({ day, status: 'partial' });
      await t.stack.drain();
      // The stack's sandbox collects the one posted, and knows no such task: that day has no row for it either.
      const failed = (await historyOf(s, { topic_id: topicId, history_days: 1 })).coverage.failed;
      expect(failed.map((f) => [f.keyword, f.error])).toEqual([
        ['gaiters', expect.stringContaining('no sandbox task')],
        ['ice axe', 'invalid field'],
      ]);
      for (const queue of Object.values(t.stack.queues)) queue.deadLetters.splice(0);

      // The next day, a post refused whole: the run fails, its scope says why, and so does the history.
      const next = later(6);
      await expect(
        runOn(s.siteId, next, () => Promise.reject(new ProviderError('refusing', 'rate limited', true))),
      ).rejects.toThrow('rate limited');
      expect((await lastRuns(s))[`topic ${topicId}`]).toMatchObject({
        day: next,
        status: 'failed',
        error: 'rate limited',
      });
      const history = await historyOf(s, { topic_id: topicId, history_days: 2 });
      expect(history.coverage.failed[0]).toEqual({ day: next, error: 'rate limited' });
      // Run again without failing, the day is taken out of the failed runs.
      await runOn(s.siteId, next, answers);
      const again = await historyOf(s, { topic_id: topicId, history_days: 2 });
      expect(again.coverage.failed.filter((f) => f.keyword === undefined)).toEqual([]);
    });

    it('records nothing on a scope stopped while its run ran, and a failure never replaces a stored row', async () => {
      const s = await siteClient(t, 'stopped-midrun', { domain: 'stopped-midrun.example.com', locale: 'US/en' });
      const topicId = await topicWith(s, 'Stopped', ['bear spray']);
      const scope = { type: 'topic', id: topicId } as const;
      await t.store.ranks.track(s.siteId, scope, { cadence: 'daily', max_keywords: 50 }, new Date());
      const day = later(7);
      await runOn(s.siteId, day, async (tasks) => {
        await t.store.ranks.untrack(s.siteId, scope);
        return tasks.map((task) => ({ tag: task.tag, id: 'x' }));
      });
      expect(await t.store.ranks.trackedScope(s.siteId, scope)).toBeNull();

      const row = {
        keyword: 'bear spray',
        locale: 'US/en',
        day,
        checked_at: new Date().toISOString(),
        data_source: 'sandbox',
        depth: 20,
        domains: [],
        site_results: [],
      };
      await t.store.ranks.put(s.siteId, [row]);
      await t.store.ranks.fail(s.siteId, [{ ...row, error: 'late failure' }], new Date());
      expect((await t.store.ranks.latest(s.siteId, 'US/en', 'bear spray', 1)).rows).toEqual([
        expect.objectContaining({ day }),
      ]);
    });
  });

  it("stores a check the provider had no SERP for as failed: the history's coverage names its day and keyword", async () => {
    const s = await siteClient(t, 'no-serp', { domain: 'no-serp.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'No SERP', ['snow boots']);
    const day = later(3);
    await t.stack.queues['rank-collect'].send(
      JSON.stringify({
        site_id: s.siteId,
        day,
        depth: 20,
        site_domain: 'no-serp.example.com',
        tasks: [{ id: 'lost-task', locale: 'US/en', keyword: 'snow boots' }],
      }),
    );
    await t.stack.drain();
    const history = await historyOf(s, { topic_id: topicId, history_days: 7 });
    expect(history.days[6]).toBe(day);
    expect(history.coverage).toMatchObject({
      days_with_data: 0,
      failed: [{ day, keyword: 'snow boots', error: expect.stringContaining('no sandbox task') }],
    });
  });
});

describe('the history of a keyword with claims', () => {
  it('reads its last days checked past the claims among them: pending, given back, of later days', async () => {
    const s = await siteClient(t, 'claimed-ahead', { domain: 'claimed-ahead.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Kettles', ['camp kettle']);
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await t.stack.drain();
    const check = (day: string, runId: string) => ({
      siteId: s.siteId,
      locale: 'US/en',
      keyword: 'camp kettle',
      day,
      runId,
    });
    // Yesterday's check failed; more claims than the first page's room sit after today's row.
    await t.store.ranks.fail(
      s.siteId,
      [{ locale: 'US/en', keyword: 'camp kettle', day: later(-1), error: 'lost' }],
      new Date(),
    );
    for (let n = 1; n <= 12; n++) expect(await t.store.ranks.claim(check(later(n), `run-${n}`), new Date())).toBe(true);
    for (const n of [2, 5, 9]) await t.store.ranks.giveBack(check(later(n), `run-${n}`), new Date());

    const one = await t.store.ranks.latest(s.siteId, 'US/en', 'camp kettle', 1);
    expect(one.rows.map((r) => r.day)).toEqual([TODAY]);
    expect(one.failed).toEqual([]);
    const two = await t.store.ranks.latest(s.siteId, 'US/en', 'camp kettle', 2);
    expect([two.rows.map((r) => r.day), two.failed.map((f) => f.day)]).toEqual([[TODAY], [later(-1)]]);
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.days).toEqual([TODAY]);
    expect(history.coverage).toMatchObject({ days_with_data: 1, keywords_with_data: 1 });
  });
});
