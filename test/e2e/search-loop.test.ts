import { LIMITS, type Device, type RankRow } from '@cm/contract';
import {
  ctrCurveOf,
  ctrOn,
  dayAfter,
  daysEndingOn,
  ownCtrByPosition,
  positionCountsOf,
  searchBackfillDays,
  searchConsoleToday,
  searchImportDay,
} from '@cm/core';
import { Meter, SandboxSearchConsole, type SearchConsoleDay } from '@cm/providers';
import { given } from '../helpers/client';
import { fakeClock } from '../helpers/clock';
import { article, siteClient, useTestStack, type SiteClient } from '../helpers/local';
import { historyOf } from '../helpers/rank-tracking';

/*
 * Issue 53's closing test: the whole loop on one local stack, offline. A site on its own domain publishes
 * three pages for a topic's keywords (one made to decay: its keyword holds the sandbox's `slipping` lever),
 * tracks them on mobile and on desktop, connects a sandbox Search Console property, and the daily
 * schedule runs as of each of the next 60 days (rank checks and Search Console imports, fanned out by the
 * monitoring plan). Each figure the API answers is then checked against the rows it came from: Search
 * Console's (asked of the sandbox provider again) and the stored rank rows.
 */

const t = useTestStack();
const HOST = 'trailcamp.example.com';
/** A tracked competitor: the sandbox's AI Overviews cite it on some days too. */
const RIVAL = 'rival-camp.com';
const PROPERTY = `sc-domain:${HOST}`;
/** A fixed day: the sandbox's figures move with the date, so a fixed one makes every figure the same each run. */
const CONNECTED = '2026-01-05';
const CONNECTED_AT = new Date(`${CONNECTED}T12:00:00.000Z`);
const SCHEDULE_DAYS = 60;
/** Each day's schedule runs at this hour (UTC): the evening before in Search Console's (Pacific) day. */
const scheduleAt = (day: string) => new Date(`${day}T06:00:00.000Z`);
const LAST = dayAfter(CONNECTED, SCHEDULE_DAYS);
/** The first day the connection's backfill imports, and the newest the last schedule's plan imports (Search Console's Pacific day and lag). */
const FIRST = given(searchBackfillDays(searchConsoleToday(CONNECTED_AT))[0], 'the first backfilled day');
const NEWEST = searchImportDay(searchConsoleToday(scheduleAt(LAST)));
/** The 28 days ending on the newest day and the 28 before. */
const WINDOWS = daysEndingOn(NEWEST, 56);
const BEFORE = WINDOWS.slice(0, 28);
const NOW = WINDOWS.slice(28);
/** The page made to decay: from the first day of the last 28, its site ranks 6 places lower. */
const SLIPPING = `stoves slipping ${given(NOW[0], 'the first day of the last window').replaceAll('-', '')}`;
/** The rank history read back: every day checked, from tracking's first check to the last schedule. */
const HISTORY_DAYS = SCHEDULE_DAYS + 1;
const DAYS = daysEndingOn(LAST, HISTORY_DAYS);

/** The topic's pages: slug, primary and secondary keywords. "camp-kettles" targets "sleeping pad" too. */
const PAGES = [
  { slug: 'sleeping-pads', primary: 'sleeping pad', secondary: ['camp pillow'] },
  { slug: 'camp-kettles', primary: 'camp kettle', secondary: ['sleeping pad'] },
  { slug: 'camp-stoves', primary: SLIPPING, secondary: [] },
] as const;
const KEYWORDS = ['sleeping pad', 'camp pillow', 'camp kettle', SLIPPING];

let s: SiteClient;
let topicId: number;
/** Each page's cm_pages id, published id and URL on the site's domain, in PAGES' order. */
const pages: Array<{ slug: string; rowId: number; id: string; url: string; keywords: string[] }> = [];
const pageOf = (slug: string) =>
  given(
    pages.find((p) => p.slug === slug),
    slug,
  );

/** The reads the sandbox's Search Console gives the property for `date`, asked of the provider again. */
const readsCache = new Map<string, SearchConsoleDay>();
async function sandboxRows(date: string): Promise<SearchConsoleDay> {
  const cached = readsCache.get(date);
  if (cached) return cached;
  const context = { siteDomain: HOST, locale: 'US/en', pages: pages.map(({ url, keywords }) => ({ url, keywords })) };
  const reads = await new SandboxSearchConsole().dayRows(PROPERTY, date, 'final', context, new Meter());
  readsCache.set(date, reads);
  return reads;
}

type Read = 'totals' | 'pages' | 'queries';
/** Clicks, impressions and the impression-weighted position of the rows of a read of `days` that `keep` keeps. */
async function figures<R extends Read>(
  days: readonly string[],
  read: R,
  keep: (row: SearchConsoleDay[R][number]) => boolean,
) {
  let clicks = 0;
  let impressions = 0;
  let weighted = 0;
  for (const date of days) {
    const rows: ReadonlyArray<SearchConsoleDay[R][number]> = (await sandboxRows(date))[read];
    for (const row of rows.filter(keep)) {
      clicks += row.clicks;
      impressions += row.impressions;
      weighted += row.position * row.impressions;
    }
  }
  return { clicks, impressions, position: impressions > 0 ? weighted / impressions : null };
}

/** The stored rank rows of a keyword on a device, by day (null: none that day). */
async function rankRows(keyword: string, device: Device): Promise<Array<RankRow | null>> {
  const { rows } = await t.store.ranks.latest(s.siteId, 'US/en', keyword, HISTORY_DAYS, device);
  return DAYS.map((day) => rows.find((row) => row.day === day) ?? null);
}
const sitePosition = (row: RankRow | null) => row?.domains.find((d) => d.domain === HOST)?.position ?? null;

/**
 * The curve the site's estimates weigh positions by: its own CTR by position over its last 28 stored days
 * (docs/api/research-tools.md#visibility).
 */
const siteCurve = async () =>
  ctrCurveOf(
    ownCtrByPosition(
      (await t.store.searchDays.range(s.siteId, given(NOW[0], 'the window'), NEWEST)).map(positionCountsOf),
    ),
  );

const traffic = async (input: Record<string, unknown>) => (await s.tool('search_traffic', input)).body;

beforeAll(async () => {
  fakeClock(CONNECTED_AT.getTime());
  // The schedule's backlink monitoring runs are not this file's: held.
  jest.spyOn(t.stack.queues.monitor, 'send').mockResolvedValue();
  s = await siteClient(t, 'Trail camp', { domain: HOST, locale: 'US/en' });
  // Served at its own domain: the property is that domain's.
  expect(await t.store.sites.serveDomain(s.siteId, HOST)).toBe('served');
  topicId = (await s.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Camping' } })).body.row.id;
  await s.client.tool('get_keywords', { topic_id: topicId, seeds: KEYWORDS });
  await s.client.tool('add_competitor', { domain: RIVAL });
  for (const { slug, primary, secondary } of PAGES) {
    const published = await s.client.route('POST /articles', { body: article(slug) });
    const row = await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: {
        title: slug,
        topic_id: topicId,
        primary_keyword: primary,
        secondary_keywords: [...secondary],
        published_id: published.body.id,
      },
    });
    pages.push({
      slug,
      rowId: row.body.row.id,
      id: published.body.id,
      url: `https://${HOST}/articles/${slug}`,
      keywords: [primary, ...secondary],
    });
  }
  // The topic on mobile (a new tracking's device), two of its pages on desktop.
  expect((await s.tool('track_rankings', { topic_id: topicId, cadence: 'daily' })).body.tracking).toMatchObject([
    { device: 'mobile', keywords: expect.arrayContaining(KEYWORDS) },
  ]);
  for (const slug of ['sleeping-pads', 'camp-stoves'])
    await s.tool('track_rankings', { page_id: pageOf(slug).rowId, cadence: 'daily', device: 'desktop' });
  expect((await s.call('PUT', '/v1/search-console', { property: PROPERTY })).status).toBe(200);
  await t.stack.drain();
  for (let n = 1; n <= SCHEDULE_DAYS; n++) {
    const day = dayAfter(CONNECTED, n);
    jest.setSystemTime(scheduleAt(day));
    await t.stack.runSchedule(scheduleAt(day));
    await t.stack.drain();
  }
  // Read on the last day before its own schedule runs: the newest stored day is the day before its import day.
  jest.setSystemTime(Date.parse(`${LAST}T12:00:00.000Z`));
}, 120_000);
afterAll(() => jest.useRealTimers());

it('imports every day once, from the 56 days before the connection to the last schedule, each at $0 in the ledger', async () => {
  const stored = await t.store.searchDays.range(s.siteId, FIRST, LAST);
  const imported = daysEndingOn(NEWEST, 1 + (Date.parse(NEWEST) - Date.parse(FIRST)) / 86_400_000);
  expect(imported[0]).toBe(FIRST);
  expect(stored.map((day) => day.date)).toEqual(imported);
  expect(stored.every((day) => day.data_state === 'final' && day.data_source === 'sandbox')).toBe(true);
  // The newest day's figures per device, as its rows have them.
  const newest = given(stored.at(-1), 'the newest day');
  for (const device of ['mobile', 'desktop', 'tablet'] as const) {
    const ofDevice = await figures([NEWEST], 'totals', (row) => row.device === device);
    expect(newest.devices[device]).toMatchObject({ clicks: ofDevice.clicks, impressions: ofDevice.impressions });
    expect(newest.devices[device]?.position).toBeCloseTo(given(ofDevice.position, 'a position'), 1);
  }
  expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({
    property: PROPERTY,
    status: 'connected',
    imported_through: NEWEST,
    last_error: null,
  });
  const usage = await s.call('GET', '/v1/usage?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z');
  const line = (tool: string) => usage.body.by_tool.filter((l: { tool: string }) => l.tool === tool);
  expect(line('search_console')).toEqual([
    // A day stored final is never asked again: its three reads, one call each.
    expect.objectContaining({ provider: 'sandbox', calls: 3 * imported.length, cost_usd: 0 }),
  ]);
  // Each day: the topic's 4 keywords on mobile, the two pages' 3 on desktop.
  expect(line('rank_tracking').reduce((n: number, l: { calls: number }) => n + l.calls, 0)).toBe(7 * HISTORY_DAYS);
});

it("answers each page's clicks and impressions over the last 28 days and the 28 before as the property's rows have them", async () => {
  for (const page of pages) {
    const reply = await traffic({ page_id: page.rowId, window_days: 28 });
    const ofPage = (row: { page: string }) => row.page === page.url;
    const [now, before] = [await figures(NOW, 'pages', ofPage), await figures(BEFORE, 'pages', ofPage)];
    expect(reply).toMatchObject({
      connected: true,
      data_source: 'sandbox',
      window: { from: NOW[0], to: NEWEST, days: NOW.length },
      previous_window: { from: BEFORE[0], to: BEFORE.at(-1), days: BEFORE.length },
      totals: { clicks: now.clicks, impressions: now.impressions },
      previous_totals: { clicks: before.clicks, impressions: before.impressions },
    });
    expect(reply.totals.position).toBeCloseTo(given(now.position, 'a position'), 1);
    expect(now.impressions).toBeGreaterThan(0);
  }
  const site = await traffic({ window_days: 28 });
  const all = await figures(NOW, 'totals', () => true);
  expect(site.totals).toMatchObject({ clicks: all.clicks, impressions: all.impressions });
});

/** A page's clicks over `days`, from its rows. */
const clicksOf = async (url: string, days: readonly string[]) =>
  (await figures(days, 'pages', (row) => row.page === url)).clicks;

/**
 * The refresh queue as the rows make it, day by day from the backfill's newest day (its 56 days all held)
 * to the newest: a page whose clicks over the 28 days ending on the day fell by LIMITS.decayDropShare from
 * at least LIMITS.decayClicksMin over the 28 before is flagged that day, unless queued already (it keeps
 * its first day and clicks before); a queued page that no longer decays leaves the queue.
 */
async function queueFromRows() {
  const queued = new Map<string, { flagged_on: string; clicks_before: number }>();
  const first = searchImportDay(searchConsoleToday(CONNECTED_AT));
  for (let day = first; day <= NEWEST; day = dayAfter(day, 1)) {
    const windows = daysEndingOn(day, 56);
    for (const { url } of pages) {
      const [before, now] = [await clicksOf(url, windows.slice(0, 28)), await clicksOf(url, windows.slice(28))];
      const decays = before >= LIMITS.decayClicksMin && now <= before * (1 - LIMITS.decayDropShare);
      if (!decays) queued.delete(url);
      else if (!queued.has(url)) queued.set(url, { flagged_on: day, clicks_before: before });
    }
  }
  return queued;
}

it('flags the page made to decay with positions lost and its clicks at risk, as its rows show them', async () => {
  const page = pageOf('camp-stoves');
  const ofPage = (row: { page: string }) => row.page === page.url;
  const [now, before] = [await figures(NOW, 'pages', ofPage), await figures(BEFORE, 'pages', ofPage)];
  // The rows: clicks fell by far more than 20 % from at least 20, the position worse by at least one place.
  expect(before.clicks).toBeGreaterThanOrEqual(20);
  expect(now.clicks).toBeLessThanOrEqual(before.clicks * 0.8);
  expect(given(now.position, 'now') - given(before.position, 'before')).toBeGreaterThanOrEqual(1);
  const queue = (await traffic({})).refresh_queue.entries;
  const fromRows = await queueFromRows();
  // Flagged the first day its rows showed the drop, and kept queued since: its clicks before are those of
  // the 28 days before that day's window, its clicks now the last 28 days'.
  const flagged = given(fromRows.get(page.url), 'the decayed page in the queue from its rows');
  expect(flagged.flagged_on >= given(NOW[0], 'the lever day')).toBe(true);
  expect(queue.find((e: { page: { id: string } }) => e.page.id === page.id)).toEqual(
    expect.objectContaining({
      page: { type: 'article', id: page.id },
      url: page.url,
      cause: 'positions_lost',
      flagged_on: flagged.flagged_on,
      clicks_before: flagged.clicks_before,
      clicks_now: now.clicks,
      clicks_at_risk: flagged.clicks_before - now.clicks,
      status: 'flagged',
    }),
  );
  // Every entry is a page the rows leave queued, with the figures they give it, most clicks at risk first.
  expect(queue.map((e: { url: string }) => e.url).sort()).toEqual([...fromRows.keys()].sort());
  for (const entry of queue) {
    const rows = given(fromRows.get(entry.url), entry.url);
    const clicksNow = await clicksOf(entry.url, NOW);
    expect(entry).toMatchObject({
      flagged_on: rows.flagged_on,
      clicks_before: rows.clicks_before,
      clicks_now: clicksNow,
      clicks_at_risk: Math.max(0, rows.clicks_before - clicksNow),
    });
  }
  const risks = queue.map((e: { clicks_at_risk: number }) => e.clicks_at_risk);
  expect(risks).toEqual([...risks].sort((a, b) => b - a));
});

describe('cannibalisation', () => {
  it("reports the query two pages share Search Console's impressions of, each page's share from the rows", async () => {
    const reply = await traffic({ window_days: 28, queries: 50 });
    const both = [pageOf('sleeping-pads'), pageOf('camp-kettles')];
    // The site's pages' impressions for the query over the window, by page, from the rows.
    const shown = new Map<string, number>();
    for (const date of NOW)
      for (const row of (await sandboxRows(date)).queries)
        if (row.query === 'sleeping pad') shown.set(row.page, (shown.get(row.page) ?? 0) + row.impressions);
    const impressions = [...shown.values()].reduce((n, i) => n + i, 0);
    const sharing = [...shown].filter(([, own]) => own / impressions >= LIMITS.trafficCannibalisationShare);
    expect(sharing.map(([url]) => url).sort()).toEqual(both.map((p) => p.url).sort());
    const entry = given(
      reply.cannibalisation.find((q: { query: string }) => q.query === 'sleeping pad'),
      'sleeping pad among the cannibalised queries',
    );
    expect(entry).toMatchObject({ tracked: true, impressions });
    expect(entry.pages.map((p: { url: string }) => p.url).sort()).toEqual(both.map((p) => p.url).sort());
    for (const [url, own] of sharing) {
      const page = entry.pages.find((p: { url: string }) => p.url === url);
      expect(page.impressions).toBe(own);
      expect(page.share).toBeCloseTo(own / impressions, 4);
    }
    // The query's pages, each with its own clicks and impressions from the (page, query) rows.
    const query = reply.queries.find((q: { query: string }) => q.query === 'sleeping pad');
    for (const page of both) {
      const own = await figures(NOW, 'queries', (row) => row.page === page.url && row.query === 'sleeping pad');
      expect(query.pages.find((p: { url: string }) => p.url === page.url)).toMatchObject({
        clicks: own.clicks,
        impressions: own.impressions,
      });
    }
  });

  it("reports the keyword the site's URLs take turns on in rank history, both URLs and their share from the stored rows", async () => {
    const history = await historyOf(s, { topic_id: topicId, history_days: HISTORY_DAYS });
    expect(history.ctr_curve).toBe('search_console');
    const entry = given(
      history.cannibalisation.find((k) => k.keyword === 'sleeping pad'),
      'sleeping pad among the cannibalised keywords',
    );
    const bests = (await rankRows('sleeping pad', 'mobile')).flatMap((row) => row?.site_results.slice(0, 1) ?? []);
    expect(entry.urls.map((u) => u.url).sort()).toEqual([...new Set(bests.map((b) => b.url))].sort());
    expect(entry.urls.length).toBeGreaterThanOrEqual(2);
    for (const u of entry.urls) expect(u.best_days).toBe(bests.filter((b) => b.url === u.url).length);
    expect(entry.swaps).toBe(bests.filter((b, i) => i > 0 && b.url !== bests[i - 1]?.url).length);
    expect(entry.swaps).toBeGreaterThan(0);
    // A URL's share: Σ CTR(position) of its every result over all of theirs, on the reply's curve (the site's own).
    const curve = await siteCurve();
    const results = (await rankRows('sleeping pad', 'mobile')).flatMap((row) => row?.site_results ?? []);
    const clicks = (url: string) =>
      results.filter((r) => r.url === url).reduce((sum, r) => sum + ctrOn(curve, r.position), 0);
    const total = entry.urls.reduce((sum, u) => sum + clicks(u.url), 0);
    for (const u of entry.urls) expect(u.share).toBeCloseTo(clicks(u.url) / total, 4);
  });
});

it("records each day's AI Overview and its citations in the rank checks, as the history shows them", async () => {
  const history = await historyOf(s, { topic_id: topicId, history_days: HISTORY_DAYS });
  expect(history.device).toBe('mobile');
  const cited = new Map<string, number>();
  /** Per domain and day, the keywords whose overview cites it. */
  const citing = new Map([HOST, RIVAL].map((domain) => [domain, DAYS.map(() => 0)]));
  for (const k of history.ai_overviews.keywords) {
    const rows = await rankRows(k.keyword, 'mobile');
    for (const [i, row] of rows.entries()) {
      const overview = given(row?.ai_overview, `${k.keyword}'s overview on ${DAYS[i]}`);
      expect(k.shown[i]).toBe(overview.shown);
      for (const domain of [HOST, RIVAL]) {
        const url = overview.references.find((r) => r.domain === domain)?.url ?? null;
        expect(k.cited[domain]?.[i]).toBe(url);
        if (!url) continue;
        cited.set(domain, (cited.get(domain) ?? 0) + 1);
        const perDay = given(citing.get(domain), domain);
        perDay[i] = (perDay[i] ?? 0) + 1;
      }
    }
  }
  expect(history.ai_overviews.keywords.map((k) => k.keyword).sort()).toEqual([...KEYWORDS].sort());
  // The site's pages and the competitor are each cited on some of the days.
  expect(cited.get(HOST)).toBeGreaterThan(0);
  expect(cited.get(RIVAL)).toBeGreaterThan(0);
  for (const domain of [HOST, RIVAL])
    expect(history.ai_overviews.domains.find((d) => d.domain === domain)?.cited).toEqual(citing.get(domain));
  expect(history.ai_overviews.shown).toEqual(
    DAYS.map((_day, i) => history.ai_overviews.keywords.filter((k) => k.shown[i] === true).length),
  );
});

it('tracks mobile and desktop each on its own: the positions of each device are its stored rows’, and they differ', async () => {
  const mobile = await historyOf(s, { topic_id: topicId, history_days: HISTORY_DAYS });
  const desktop = await historyOf(s, { topic_id: topicId, history_days: HISTORY_DAYS, device: 'desktop' });
  expect([mobile.device, desktop.device]).toEqual(['mobile', 'desktop']);
  // The topic's keywords, the one no page tracks on desktop (camp kettle) with no position any day.
  expect(desktop.keywords.map((k) => k.keyword).sort()).toEqual([...KEYWORDS].sort());
  expect(desktop.keywords.find((k) => k.keyword === 'camp kettle')?.positions[HOST]).toEqual(DAYS.map(() => null));
  expect(desktop.coverage).toMatchObject({ days_with_data: HISTORY_DAYS, keywords_with_data: 3 });
  let differ = 0;
  for (const keyword of ['sleeping pad', 'camp pillow', SLIPPING]) {
    const series = (history: typeof mobile) =>
      given(history.keywords.find((k) => k.keyword === keyword)?.positions[HOST], `${keyword}'s positions`);
    const [onMobile, onDesktop] = [series(mobile), series(desktop)];
    expect(onMobile).toEqual((await rankRows(keyword, 'mobile')).map(sitePosition));
    expect(onDesktop).toEqual((await rankRows(keyword, 'desktop')).map(sitePosition));
    expect(onMobile.every((p) => p !== null)).toBe(true);
    differ += onMobile.filter((p, i) => p !== onDesktop[i]).length;
  }
  expect(differ).toBeGreaterThan(0);
  // The slipping keyword's site lost 6 places on each device from the lever's day (index of NOW[0] in DAYS).
  const slip = DAYS.indexOf(given(NOW[0], 'the lever day'));
  const onDesktop = given(desktop.keywords.find((k) => k.keyword === SLIPPING)?.positions[HOST], 'slipping');
  expect(Math.min(...onDesktop.slice(slip).map((p) => p ?? 100))).toBeGreaterThanOrEqual(7);
});

it('reads visibility at 100 % on the days the site is first on every keyword of the scope, and below on the others', async () => {
  // No sandbox lever or helper places a site first on every keyword (its positions drift day by day, as
  // a real site's do): on this fixed window the page's two keywords are both first on some days, and
  // those days must read 100 %, every other day the formula's figure below it.
  const page = pageOf('sleeping-pads');
  const history = await historyOf(s, { page_id: page.rowId, history_days: HISTORY_DAYS });
  expect(history.device).toBe('desktop');
  const site = given(
    history.visibility.find((v) => v.is_site),
    "the site's visibility",
  );
  expect(history.ctr_curve).toBe('search_console');
  const curve = await siteCurve();
  const volumes = new Map<string, number>(
    (await s.client.tool('db_select', { table: 'cm_keywords', limit: 200 })).body.rows.map((row) => [
      String(row.keyword),
      Number(row.volume),
    ]),
  );
  const rows = await Promise.all(
    page.keywords.map(async (keyword) => ({
      volume: given(volumes.get(keyword), `${keyword}'s volume`),
      byDay: await rankRows(keyword, 'desktop'),
    })),
  );
  const firstEverywhere: boolean[] = [];
  for (const [i] of DAYS.entries()) {
    // Visibility: 100 × Σ volume × CTR(position) / CTR(1) over Σ volume; estimated clicks Σ volume × CTR(position) a day.
    let volume = 0;
    let weighted = 0;
    let clicks = 0;
    for (const keyword of rows) {
      const position = sitePosition(given(keyword.byDay[i], `a check on ${DAYS[i]}`));
      volume += keyword.volume;
      if (position === null) continue;
      weighted += keyword.volume * Math.min(1, ctrOn(curve, position) / ctrOn(curve, 1));
      clicks += keyword.volume * ctrOn(curve, position);
    }
    expect(site.visibility_pct[i]).toBeCloseTo((100 * weighted) / volume, 2);
    expect(site.estimated_clicks_per_day[i]).toBeCloseTo(clicks / (365 / 12), 2);
    firstEverywhere.push(rows.every((keyword) => sitePosition(keyword.byDay[i] ?? null) === 1));
    if (firstEverywhere[i]) expect(site.visibility_pct[i]).toBe(100);
    else expect(site.visibility_pct[i]).toBeLessThan(100);
  }
  expect(firstEverywhere.filter(Boolean).length).toBeGreaterThan(0);
  expect(firstEverywhere.filter((first) => !first).length).toBeGreaterThan(0);
});
