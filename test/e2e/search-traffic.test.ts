import type * as z from 'zod/mini';
import type { SearchTrafficInput } from '@cm/contract';
import { dayAfter, daysEndingOn, searchConsoleToday, searchImportDay, searchPlanDays, utcDay } from '@cm/core';
import { evaluateDecay } from '@cm/tools';
import { given } from '../helpers/client';
import { fakeClock } from '../helpers/clock';
import { checkedRankRow } from '../helpers/rank-rows';
import { searchDays, type SearchRow } from '../helpers/search-days';
import { article, siteClient, useTestStack, type SiteClient } from '../helpers/local';

/*
 * search_traffic over Search Console days put directly (the import is tested apart), each figure checked
 * against the rows it came from; decay evaluated on pages made to decay, the refresh queue's order, a
 * republish measured 28 days later; and the site's own CTR curve in serp_landscape's estimates.
 */

const t = useTestStack();

const TODAY = utcDay(new Date());
// Publishes, the tool's today and the days put agree on the date, at midnight too.
beforeEach(() => fakeClock(Date.parse(`${TODAY}T12:00:00.000Z`)));
afterEach(() => jest.useRealTimers());
/** The 56 days ending today: the 28 before (i < 28) and the last 28. */
const FIRST = daysEndingOn(TODAY, 56)[0] ?? TODAY;

const traffic = async (s: SiteClient, input: z.input<typeof SearchTrafficInput>) =>
  (await s.client.tool('search_traffic', input)).body;

async function publish(s: SiteClient, slug: string, text = `Body of ${slug}`) {
  const reply = await s.client.route('POST /articles', {
    body: article(slug, { body: [{ _type: 'paragraph', text }] }),
  });
  return reply.body.id;
}

describe('search_traffic', () => {
  it('says the site is not connected when it has no Search Console days, and refuses what it cannot do', async () => {
    const s = await siteClient(t, 'unconnected');
    const reply = await traffic(s, {});
    expect(reply).toMatchObject({
      connected: false,
      data_source: 'database',
      window: null,
      totals: { clicks: 0, impressions: 0, ctr: null, position: null },
      ctr_curve: 'published:first-page-sage/2024',
      refresh_queue: { entries: [], next_cursor: null },
    });
    expect(reply.note).toMatch(/connect/);
    // Connected, its first import not stored yet: connected, without figures.
    await t.store.searchConsole.put({
      site_id: s.siteId,
      property: 'sc-domain:example.com',
      status: 'pending',
      connected_at: `${TODAY}T00:00:00.000Z`,
    });
    const pending = await traffic(s, {});
    expect(pending).toMatchObject({ connected: true, window: null, totals: { clicks: 0 } });
    expect(pending.note).toMatch(/first import/);
    for (const body of [
      { page_id: 1, topic_id: 1 },
      { window_days: 14 },
      { page_id: 1, queue_limit: 5 },
      { pages: 51 },
      { queue_limit: 101 },
      // A forged queue position (a pointer's key): no cursor of the queue, never a 500.
      { queue_cursor: Buffer.from(JSON.stringify(['P#article#1'])).toString('base64url') },
    ])
      expect((await s.tool('search_traffic', body)).status).toBe(400);
    expect(await s.tool('search_traffic', { page_id: 999 })).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
  });

  it("answers the site's, a page's and a topic's figures against the window before, from the days' rows", async () => {
    const s = await siteClient(t, 'figures', { locale: 'US/en' });
    const [a, b] = [await publish(s, 'trail-shoes'), await publish(s, 'road-shoes')];
    const topic = (await s.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Shoes' } })).body.row.id;
    const pageA = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Trail shoes', topic_id: topic, published_id: a, primary_keyword: 'trail shoes' },
      })
    ).body.row.id;
    // Each of the 14 days: 7 before the window (i < 7), 7 in it.
    const rowsOf = (i: number): SearchRow[] => [
      {
        page: a,
        query: 'trail shoes',
        tracked: true,
        clicks: i < 7 ? 10 : 6,
        impressions: 100,
        position: i < 7 ? 2 : 3,
      },
      { page: a, query: 'best trail shoes', clicks: 1, impressions: 40, position: 8 },
      { page: b, query: 'trail shoes', tracked: true, clicks: 2, impressions: 60, position: 9 },
    ];
    const stored = searchDays(daysEndingOn(TODAY, 14)[0] ?? TODAY, 14, rowsOf);
    for (const day of stored) await t.store.searchDays.put(s.siteId, day);
    // Days stored without a connection (as after DELETE /v1/search-console): figures, but not connected.
    const disconnected = await traffic(s, { window_days: 7 });
    expect(disconnected).toMatchObject({ connected: false, totals: { clicks: 63 } });
    expect(disconnected.note).toMatch(/not connected/);
    await t.store.searchConsole.put({
      site_id: s.siteId,
      property: 'sc-domain:example.com',
      status: 'connected',
      connected_at: `${TODAY}T00:00:00.000Z`,
    });

    const site = await traffic(s, { window_days: 7 });
    expect(site).toMatchObject({
      connected: true,
      data_source: 'sandbox',
      scope: { type: 'site', id: null },
      window: { from: daysEndingOn(TODAY, 7)[0], to: TODAY, days: 7 },
      previous_window: { from: daysEndingOn(TODAY, 14)[0], to: daysEndingOn(TODAY, 8)[0], days: 7 },
      // 7 × (6 + 1 + 2) clicks; 7 × 200 impressions; (3·100 + 8·40 + 9·60) / 200.
      totals: { clicks: 63, impressions: 1400, ctr: 0.045, position: 5.8 },
      previous_totals: { clicks: 91, impressions: 1400, ctr: 0.065, position: 5.3 },
      deltas: { clicks: -28, clicks_change: -0.3077, impressions: 0, ctr: -0.02, position: 0.5 },
      keyword_candidates: [{ query: 'best trail shoes', clicks: 7, impressions: 280, ctr: 0.025, position: 8 }],
      ctr_curve: 'published:first-page-sage/2024',
    });
    expect(site.queries[0]).toMatchObject({
      query: 'trail shoes',
      tracked: true,
      clicks: 56,
      pages: [
        { url: `https://example.com/articles/${a}`, clicks: 42, impressions: 700, position: 3 },
        { url: `https://example.com/articles/${b}`, clicks: 14, impressions: 420, position: 9 },
      ],
    });

    // Both pages hold a share of "trail shoes": 700 and 420 of its 1,120 impressions.
    expect(site.cannibalisation).toEqual([
      {
        query: 'trail shoes',
        tracked: true,
        impressions: 1120,
        pages: [
          { url: `https://example.com/articles/${a}`, impressions: 700, share: 0.625 },
          { url: `https://example.com/articles/${b}`, impressions: 420, share: 0.375 },
        ],
      },
    ]);

    const page = await traffic(s, { page_id: pageA, window_days: 7 });
    expect(page).toMatchObject({
      scope: { type: 'page', id: pageA, name: 'Trail shoes' },
      totals: { clicks: 49, impressions: 980 },
      previous_totals: { clicks: 77, impressions: 980 },
      refresh_queue: null,
    });
    expect(page.pages).toEqual([
      expect.objectContaining({
        page: { type: 'article', id: a },
        clicks: 49,
        queries: [
          { query: 'trail shoes', clicks: 42, impressions: 700, ctr: 0.06, position: 3 },
          { query: 'best trail shoes', clicks: 7, impressions: 280, ctr: 0.025, position: 8 },
        ],
      }),
    ]);
    const draft = (await s.client.tool('db_insert', { table: 'cm_pages', row: { title: 'Not yet' } })).body.row.id;
    expect(await traffic(s, { page_id: draft })).toMatchObject({
      connected: true,
      totals: { clicks: 0, impressions: 0 },
      pages: [],
      note: 'This page has no published page: Search Console has no figures for it.',
    });
    // The topic's one published page is page a: the same figures.
    const byTopic = await traffic(s, { topic_id: topic, window_days: 7 });
    expect(byTopic).toMatchObject({ scope: { type: 'topic', id: topic, name: 'Shoes' }, totals: page.totals });
  });

  it('reads both windows whole when the stored days end days before the import day', async () => {
    // Early in the UTC day, still the day before in Pacific time: today's import has not run, and the
    // newest two days yesterday's plan asked were not final yet. The newest stored day is the oldest it asked.
    const now = new Date(`${TODAY}T03:00:00.000Z`);
    jest.setSystemTime(now);
    const last = given(searchPlanDays(dayAfter(searchConsoleToday(now), -1)).at(-1), "yesterday's oldest plan day");
    expect(last < searchImportDay(utcDay(now))).toBe(true);
    const s = await siteClient(t, 'lagging');
    const id = await publish(s, 'tents');
    const stored = searchDays(daysEndingOn(last, 56)[0] ?? last, 56, (i) => [
      { page: id, query: 'tents', clicks: i < 28 ? 5 : 3, impressions: 50, position: 4 },
    ]);
    for (const day of stored) await t.store.searchDays.put(s.siteId, day);
    const reply = await traffic(s, { window_days: 28 });
    expect(reply).toMatchObject({
      window: { from: stored[28]?.date, to: last, days: 28 },
      previous_window: { from: stored[0]?.date, to: stored[27]?.date, days: 28 },
      totals: { clicks: 28 * 3, impressions: 28 * 50 },
      previous_totals: { clicks: 28 * 5, impressions: 28 * 50 },
    });
  });
});

describe('decay and the refresh queue', () => {
  /** A page's row on day i: `before` its figures in the 28 days before, `now` in the last 28. */
  type Figures = Pick<SearchRow, 'clicks' | 'impressions' | 'position'>;
  const pageRow = (page: string, query: string, i: number, before: Figures, now: Figures): SearchRow => ({
    page,
    query,
    tracked: true,
    ...(i < 28 ? before : now),
  });

  it('flags decayed pages with their cause and clicks at risk, most at risk first, and measures a republish 28 days later', async () => {
    const s = await siteClient(t, 'decay', { locale: 'US/en' });
    const slugs = ['positions', 'overview', 'demand', 'changed', 'steady', 'unexplained', 'recovering'] as const;
    const ids: Record<string, string> = {};
    for (const slug of slugs) ids[slug] = await publish(s, slug);
    const id = (slug: (typeof slugs)[number]) => ids[slug] ?? '';
    await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: { title: 'Overview', published_id: id('overview'), primary_keyword: 'overview shoes' },
    });
    await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: { title: 'Recovering', published_id: id('recovering'), primary_keyword: 'recovering shoes' },
    });
    const rowsOf = (i: number): SearchRow[] => [
      // Clicks 10 → 5 a day, position 3 → 5: positions lost, 140 at risk.
      pageRow(
        id('positions'),
        'q1',
        i,
        { clicks: 10, impressions: 100, position: 3 },
        { clicks: 5, impressions: 100, position: 5 },
      ),
      // CTR 0.08 → 0.04 at a steady position, and an AI Overview shown: 112 at risk.
      pageRow(
        id('overview'),
        'overview shoes',
        i,
        { clicks: 8, impressions: 100, position: 2 },
        { clicks: 4, impressions: 100, position: 2.2 },
      ),
      // Impressions halved, CTR steady: demand fell, 84 at risk.
      pageRow(
        id('demand'),
        'q3',
        i,
        { clicks: 6, impressions: 100, position: 4 },
        { clicks: 3, impressions: 50, position: 4 },
      ),
      // A better position yet fewer clicks, and the page republished: page changed, 56 at risk.
      pageRow(
        id('changed'),
        'q4',
        i,
        { clicks: 4, impressions: 100, position: 6 },
        { clicks: 2, impressions: 100, position: 4 },
      ),
      pageRow(
        id('steady'),
        'q5',
        i,
        { clicks: 5, impressions: 100, position: 3 },
        { clicks: 5, impressions: 100, position: 3 },
      ),
      // A better position yet fewer clicks, without a change: unknown, 168 at risk.
      pageRow(
        id('unexplained'),
        'q6',
        i,
        { clicks: 10, impressions: 100, position: 6 },
        { clicks: 4, impressions: 100, position: 4 },
      ),
      // Clicks 3 → 2 a day: 28 at risk, recovers after its republish.
      pageRow(
        id('recovering'),
        'q7',
        i,
        { clicks: 3, impressions: 100, position: 5 },
        { clicks: 2, impressions: 100, position: 5.5 },
      ),
    ];
    for (const day of searchDays(FIRST, 56, rowsOf)) await t.store.searchDays.put(s.siteId, day);
    // An AI Overview appeared on "overview shoes" in the last 28 days; "recovering shoes" had one all along.
    const overviewOn = (keyword: string, day: string) =>
      checkedRankRow(keyword, day, {
        domains: [],
        site_results: [],
        ai_overview: { shown: true, references: [], references_loaded: true },
      });
    await t.store.ranks.put(s.siteId, [
      overviewOn('overview shoes', dayAfter(FIRST, 40)),
      overviewOn('recovering shoes', dayAfter(FIRST, 10)),
      overviewOn('recovering shoes', dayAfter(FIRST, 40)),
    ]);
    await publish(s, 'changed', 'A new body');

    // Yesterday's evaluation then today's: each page's entry replaced, never added again.
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, -1));
    await evaluateDecay(t.store, s.siteId, TODAY);
    await evaluateDecay(t.store, s.siteId, TODAY);
    const queue = await traffic(s, {});
    expect(
      queue.refresh_queue?.entries.map((e) => [
        e.page.id,
        e.cause,
        e.clicks_before,
        e.clicks_now,
        e.clicks_at_risk,
        e.status,
      ]),
    ).toEqual([
      [id('unexplained'), 'unknown', 280, 112, 168, 'flagged'],
      [id('positions'), 'positions_lost', 280, 140, 140, 'flagged'],
      [id('overview'), 'ai_overview', 224, 112, 112, 'flagged'],
      [id('demand'), 'demand_fell', 168, 84, 84, 'flagged'],
      [id('changed'), 'page_changed', 112, 56, 56, 'flagged'],
      [id('recovering'), 'ctr_fell', 84, 56, 28, 'flagged'],
    ]);
    // Flagged first yesterday (its window then held 27 of the 28 days before, scaled): today keeps that day.
    expect(queue.refresh_queue?.entries[0]).toMatchObject({
      flagged_on: dayAfter(TODAY, -1),
      refreshed_at: null,
      measured: null,
    });

    // Paged with a cursor, in the same order.
    const first = await traffic(s, { queue_limit: 4 });
    const rest = await traffic(s, { queue_cursor: first.refresh_queue?.next_cursor ?? '' });
    expect(
      [...(first.refresh_queue?.entries ?? []), ...(rest.refresh_queue?.entries ?? [])].map((e) => e.page.id),
    ).toEqual(queue.refresh_queue?.entries.map((e) => e.page.id));

    // Two flagged pages republished today: measured on the days after.
    await publish(s, 'positions', 'Refreshed body');
    await publish(s, 'recovering', 'Refreshed body');
    const entryOf = async (slug: (typeof slugs)[number]) =>
      (await traffic(s, {})).refresh_queue?.entries.find((e) => e.page.id === id(slug));
    expect(await entryOf('positions')).toMatchObject({ status: 'measuring', measure_due_on: dayAfter(TODAY, 28) });
    expect(await entryOf('overview')).toMatchObject({ status: 'flagged', refreshed_at: null });
    // The 28 days after: "positions" back to 6 a day (168 of 280: under 80 %), "recovering" to 3 (84 of 84).
    const after = (i: number): SearchRow[] => [
      { page: id('positions'), query: 'q1', tracked: true, clicks: 6, impressions: 100, position: 4 },
      { page: id('recovering'), query: 'q7', tracked: true, clicks: i === 0 ? 0 : 3, impressions: 100, position: 5 },
    ];
    for (const day of searchDays(dayAfter(TODAY, 1), 28, after)) await t.store.searchDays.put(s.siteId, day);
    // Not yet due the day before.
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, 27));
    expect(await entryOf('positions')).toMatchObject({ status: 'measuring' });
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, 28));
    expect(await entryOf('positions')).toMatchObject({
      status: 'not_recovered',
      measured: { outcome: 'not_recovered', clicks_after: 168, measured_on: dayAfter(TODAY, 28) },
    });
    expect(await entryOf('recovering')).toMatchObject({
      status: 'recovered',
      measured: { outcome: 'recovered', clicks_after: 81, measured_on: dayAfter(TODAY, 28) },
    });
    // A measured entry keeps its outcome 28 days; then a page still down is flagged afresh.
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, 55));
    expect(await entryOf('positions')).toMatchObject({ status: 'not_recovered' });
    // Its days after the measure not imported yet: a missing day is no day without clicks, so nothing is judged.
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, 56));
    expect(await entryOf('positions')).toMatchObject({ status: 'not_recovered' });
    const down = (): SearchRow[] => [
      { page: id('positions'), query: 'q1', tracked: true, clicks: 0, impressions: 100, position: 4 },
    ];
    for (const day of searchDays(dayAfter(TODAY, 29), 28, down)) await t.store.searchDays.put(s.siteId, day);
    await evaluateDecay(t.store, s.siteId, dayAfter(TODAY, 56));
    expect(await entryOf('positions')).toMatchObject({
      status: 'flagged',
      flagged_on: dayAfter(TODAY, 56),
      clicks_before: 168,
      clicks_now: 0,
      refreshed_at: null,
    });
  });
});

it('waits to measure a republish until the last day of its 28 days after is stored', async () => {
  const s = await siteClient(t, 'measure-waits');
  const page = { type: 'article' as const, id: 'art_waiting' };
  await t.store.refreshQueue.flag(s.siteId, {
    page,
    url: 'https://example.com/articles/art_waiting',
    cause: 'unknown',
    flagged_on: dayAfter(TODAY, -40),
    clicks_before: 100,
    clicks_now: 50,
    clicks_at_risk: 50,
    refreshed_at: `${dayAfter(TODAY, -30)}T08:00:00.000Z`,
    measured: null,
  });
  // Its 28 days after end two days ago; none of them is stored: not measured as no clicks.
  await evaluateDecay(t.store, s.siteId, TODAY);
  expect((await traffic(s, {})).refresh_queue?.entries).toMatchObject([{ status: 'measuring', measured: null }]);
  for (const day of searchDays(dayAfter(TODAY, -29), 28, () => [
    { page: page.id, query: 'q', clicks: 3, impressions: 50, position: 4 },
  ]))
    await t.store.searchDays.put(s.siteId, day);
  await evaluateDecay(t.store, s.siteId, TODAY);
  expect((await traffic(s, {})).refresh_queue?.entries).toMatchObject([
    { status: 'recovered', measured: { clicks_after: 84, measured_on: TODAY } },
  ]);
});

describe("the site's own CTR curve", () => {
  it("weighs serp_landscape's estimates once the site has Search Console days, and says so", async () => {
    const s = await siteClient(t, 'curve', { locale: 'US/en' });
    const before = (await s.client.tool('serp_landscape', { keyword: 'trail shoes', history_days: 7 })).body;
    expect(JSON.stringify(before)).not.toContain('"search_console"');
    expect(before.history?.ctr_curve).toBe('published:first-page-sage/2024');
    // Position 1 gets 30 % of its 100 impressions a day.
    const rows = (): SearchRow[] => [{ page: 'p', query: 'trail shoes', clicks: 30, impressions: 100, position: 1 }];
    for (const day of searchDays(daysEndingOn(TODAY, 28)[0] ?? TODAY, 28, rows))
      await t.store.searchDays.put(s.siteId, day);
    const after = (await s.client.tool('serp_landscape', { keyword: 'trail shoes', history_days: 7 })).body;
    expect(after.history?.ctr_curve).toBe('search_console');
    expect((await traffic(s, {})).ctr_curve).toBe('search_console');
  });
});
