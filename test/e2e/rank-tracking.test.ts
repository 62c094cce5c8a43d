import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SharedRankSerp } from '@cm/contract';
import { ctrAt, daysEndingOn } from '@cm/core';
import { rankCheckPrice } from '@cm/providers';
import { rowKey, trackedScopeKey } from '../../packages/store/src/keys';
import { rankSerpDatum } from '../../packages/tools/src/rank-serps';
import { given } from '../helpers/client';
import { article, siteClient, warmKeyCheck, type SiteClient, type TestStack } from '../helpers/local';
import {
  PRICE,
  TODAY,
  later,
  historyOf,
  rankLedger,
  topicWith,
  useRankTrackingStack,
  type Landscape,
} from '../helpers/rank-tracking';

/*
 * Rank tracking on the local stack, offline (test/helpers/rank-tracking.ts): track_rankings turns a
 * topic's or a page's tracking on, the daily schedule (run as of each of 30 days) checks each tracked
 * keyword once a day through the sandbox's standard queue, and serp_landscape history_days reads the
 * positions, share of voice, winners and losers and the published page's own positions back.
 * rank-tracking-runs.test.ts has what stops tracking, what a check pays and a run that fails.
 */

const rank = useRankTrackingStack();
let t: TestStack;
beforeAll(() => {
  t = rank.t();
});
const { scheduleOn, untrackEarlierSites } = rank;

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
    // A device is a tracking's setting: refused where nothing would be checked on it, never dropped.
    for (const body of [
      { topic_id: 1, cadence: 'daily', device: 'tablet' },
      { device: 'mobile' },
      { topic_id: 1, cadence: 'off', device: 'mobile' },
    ])
      expect(await s.tool('track_rankings', body)).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', issues: [{ path: 'device' }] },
      });
    expect(await s.tool('serp_landscape', { keyword: 'trail shoes', device: 'mobile' })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', issues: [{ path: 'device', message: 'applies with history_days only' }] },
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

describe('devices', () => {
  it('checks a keyword tracked on mobile and on desktop twice a day, each SERP its own shared datum, priced and paid per device', async () => {
    const s = await siteClient(t, 'devices', { domain: 'devices.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Climbing', ['climbing shoes', 'chalk bag']);
    const page = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Climbing shoes', topic_id: topicId, primary_keyword: 'climbing shoes' },
      })
    ).body.row;
    // The topic on mobile (the default of a new tracking), the page's keyword on desktop too.
    const estimate = await s.client.tool('track_rankings', {
      page_id: page.id,
      cadence: 'daily',
      device: 'desktop',
      estimate: true,
    });
    expect(estimate.body).toMatchObject({
      estimate: true,
      notes: expect.arrayContaining([expect.stringContaining('daily on desktop')]),
    });
    const topic = (await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' })).body;
    expect(topic.tracking).toMatchObject([{ device: 'mobile', checks_per_month: 60 }]);
    const both = (await s.client.tool('track_rankings', { page_id: page.id, cadence: 'daily', device: 'desktop' }))
      .body;
    expect(both.tracking.map((scope) => [scope.scope.type, scope.device, scope.checks_per_month])).toEqual(
      expect.arrayContaining([
        ['topic', 'mobile', 60],
        ['page', 'desktop', 30],
      ]),
    );
    // Two keywords, one of them on both devices: three checks a day, each at the one list price.
    expect(both.total).toEqual({
      keywords: 2,
      checks_per_month: 90,
      usd_per_month: Math.round(90 * PRICE * 1e6) / 1e6,
    });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 3 });

    // Each device's SERP is its own datum in the shared cache, paid once for every site.
    const datum = (device: 'desktop' | 'mobile') =>
      t.store.shared.get(
        rankSerpDatum({ locale: 'US/en', keyword: 'climbing shoes', device }, 20, TODAY),
        SharedRankSerp,
      );
    const [desktop, mobile] = await Promise.all([datum('desktop'), datum('mobile')]);
    expect(desktop?.value).toHaveProperty('items');
    expect(mobile?.value).toHaveProperty('items');
    expect(mobile?.value).not.toEqual(desktop?.value);

    // Each device's history: the topic's own (mobile) by default, desktop when asked.
    const onMobile = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(onMobile).toMatchObject({ device: 'mobile', coverage: { keywords_with_data: 2 } });
    const onDesktop = await historyOf(s, { topic_id: topicId, history_days: 1, device: 'desktop' });
    expect(onDesktop).toMatchObject({ device: 'desktop', coverage: { keywords_with_data: 1 } });
    expect(onDesktop.keywords.map((k) => k.keyword)).toContain('climbing shoes');
    const pageHistory = await historyOf(s, { page_id: page.id, history_days: 1 });
    expect(pageHistory.device).toBe('desktop');
  });

  it('keeps a scope tracked before devices were on desktop when it is tracked again without one', async () => {
    const s = await siteClient(t, 'legacy', { domain: 'legacy.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Kayaks', ['sea kayak']);
    // A tracking item as it was stored before devices were: no device.
    await t.db.send(
      new PutCommand({
        TableName: t.stack.tableName,
        Item: {
          ...trackedScopeKey(s.siteId, 'topic', topicId),
          type: 'topic',
          id: topicId,
          cadence: 'weekly',
          max_keywords: 50,
          since: TODAY,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        },
      }),
    );
    expect((await s.client.tool('track_rankings', {})).body.tracking).toMatchObject([{ device: 'desktop' }]);
    const again = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(again.body.tracking).toMatchObject([{ device: 'desktop', cadence: 'daily' }]);
    const mobile = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily', device: 'mobile' });
    expect(mobile.body.tracking).toMatchObject([{ device: 'mobile' }]);
    await t.stack.drain();
  });
});

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
      // A new tracking is checked on mobile.
      const { rows } = await t.store.ranks.latest(s.siteId, 'US/en', keyword, 1, 'mobile');
      expect(rows[0]).toMatchObject({ depth: 100, device: 'mobile' });
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
    expect(rank.monitorRuns()).toBeGreaterThan(30);
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

  it("has each keyword's AI Overview per day beside its positions, as its stored rows recorded it: shown, the URL it cited of the site and of each competitor, and each domain's AI Overview share of voice", async () => {
    const domains = ['runners-hub.example.com', 'rival-one.com', 'rival-two.com'];
    const volumes = new Map(landscape.keywords.map((k) => [k.keyword, k.volume ?? 0]));
    const rows = await Promise.all(
      history.ai_overviews.keywords.map(async (k) => {
        const stored = await t.store.ranks.latest(s.siteId, k.locale, k.keyword, 30, history.device);
        return DAYS.map((day) => stored.rows.find((row) => row.day === day)?.ai_overview);
      }),
    );
    const cited = new Set<string>();
    for (const [j, k] of history.ai_overviews.keywords.entries()) {
      expect(Object.keys(k.cited).sort()).toEqual([...domains].sort());
      for (const [i] of DAYS.entries()) {
        const overview = given(rows[j]?.[i], `${k.keyword}'s overview on day ${i}`);
        expect(k.shown[i]).toBe(overview.shown);
        for (const domain of domains) {
          const url =
            overview.references.find((r) => r.domain === domain || r.domain.endsWith(`.${domain}`))?.url ?? null;
          expect(k.cited[domain]?.[i]).toBe(url);
          if (url) cited.add(domain);
        }
      }
    }
    // Over 30 days the overviews cite the site and a competitor, on some keywords' days.
    expect(history.ai_overviews.shown.some((n) => (n ?? 0) > 0)).toBe(true);
    expect(cited.has('runners-hub.example.com')).toBe(true);
    expect(cited.has('rival-one.com') || cited.has('rival-two.com')).toBe(true);
    // Each domain's share: Σ volume × its share of the overview's references / Σ volume.
    const total = history.ai_overviews.keywords.reduce((sum, k) => sum + (volumes.get(k.keyword) ?? 0), 0);
    for (const entry of history.ai_overviews.domains.filter((d) => domains.includes(d.domain)))
      for (const [i] of DAYS.entries()) {
        const weighted = history.ai_overviews.keywords.reduce((sum, k, j) => {
          const { references } = given(rows[j]?.[i], 'an overview');
          const own = references.filter((r) => r.domain === entry.domain || r.domain.endsWith(`.${entry.domain}`));
          return sum + (references.length ? (volumes.get(k.keyword) ?? 0) * (own.length / references.length) : 0);
        }, 0);
        expect(entry.sov[i]).toBeCloseTo(weighted / total, 3);
      }
    // The landscape's SERPs are desktop ones (a live pull's, or a desktop check's): this topic is checked on
    // mobile, the default, so the history has its AI Overviews and the landscape's share of voice none.
    expect(history.device).toBe('mobile');
    expect(landscape.sov.domains.find((d) => d.is_site)?.ai_sov).toBeNull();
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

  it("reports the keyword the site's URLs take turns on (cannibalisation): both URLs, their days as the site's best and their share, from its stored rows", async () => {
    const entry = given(
      history.cannibalisation.find((k) => k.keyword === 'running shoes'),
      'running shoes among the cannibalised keywords',
    );
    const stored = await t.store.ranks.latest(s.siteId, 'US/en', 'running shoes', 30, history.device);
    const bests = DAYS.flatMap((day) => {
      const best = stored.rows.find((row) => row.day === day)?.site_results[0];
      return best ? [best] : [];
    });
    expect(entry.urls.map((u) => u.url).sort()).toEqual([...new Set(bests.map((b) => b.url))].sort());
    expect(entry.urls.map((u) => u.url)).toContain('https://runners-hub.example.com/articles/running-shoes-guide');
    for (const u of entry.urls) expect(u.best_days).toBe(bests.filter((b) => b.url === u.url).length);
    expect(entry.swaps).toBe(bests.filter((b, i) => i > 0 && b.url !== bests[i - 1]?.url).length);
    // One result of the site a SERP in the sandbox: its URLs take turns, never rank together.
    expect(entry.shared_days).toBe(0);
    const clicks = (url: string) => bests.filter((b) => b.url === url).reduce((sum, b) => sum + ctrAt(b.position), 0);
    const total = entry.urls.reduce((sum, u) => sum + clicks(u.url), 0);
    for (const u of entry.urls) expect(u.share).toBeCloseTo(total > 0 ? clicks(u.url) / total : 0, 3);
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
