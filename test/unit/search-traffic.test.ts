import { LIMITS } from '@cm/contract';
import {
  ctrCurveOf,
  dayAfter,
  decayCause,
  decayedPages,
  decayOf,
  flaggedEntry,
  deltaOf,
  figuresOver,
  ownCtrByPosition,
  positionCountsOf,
  pagesOver,
  queriesAndPages,
  recoveryOf,
  trafficWindows,
} from '@cm/core';
import { searchDay, searchDays } from '../helpers/search-days';

/* Search Console's figures read back (core/search-traffic.ts) and decay's rule (core/decay.ts). */

const LIMITS_OF_LISTS = { pages: 10, queries: 10, candidates: 10 };

describe('the traffic windows', () => {
  it('are the N days ending on the date and the N days before', () => {
    expect([dayAfter('2026-02-27', 2), dayAfter('2026-03-01', -1)]).toEqual(['2026-03-01', '2026-02-28']);
    expect(trafficWindows('2026-03-28', 28)).toEqual({
      window: { from: '2026-03-01', to: '2026-03-28' },
      previous: { from: '2026-02-01', to: '2026-02-28' },
    });
    expect(trafficWindows('2026-01-07', 7)).toEqual({
      window: { from: '2026-01-01', to: '2026-01-07' },
      previous: { from: '2025-12-25', to: '2025-12-31' },
    });
  });
});

describe('the figures of a window', () => {
  // Two days before the window, two in it: page a gets "shoes" and "boots", page b "shoes", a listing "sale".
  const days = [
    searchDay('2026-03-01', [{ page: 'a', query: 'shoes', tracked: true, clicks: 10, impressions: 100, position: 2 }]),
    searchDay('2026-03-02', [{ page: 'a', query: 'shoes', tracked: true, clicks: 30, impressions: 100, position: 4 }]),
    searchDay('2026-03-03', [
      { page: 'a', query: 'shoes', tracked: true, clicks: 8, impressions: 100, position: 3 },
      { page: 'a', query: 'boots', clicks: 2, impressions: 300, position: 7 },
      { page: 'b', query: 'shoes', tracked: true, clicks: 1, impressions: 50, position: 9 },
    ]),
    searchDay('2026-03-04', [
      { page: 'a', query: 'shoes', tracked: true, clicks: 4, impressions: 100, position: 5 },
      { page: null, query: 'sale', clicks: 5, impressions: 20, position: 1 },
    ]),
  ];
  const { window, previous } = trafficWindows('2026-03-04', 2);

  it("sums the site's totals and a page's, CTR clicks over impressions, the position weighed by impressions", () => {
    expect(figuresOver(days, previous, 'site')).toEqual({ clicks: 40, impressions: 200, ctr: 0.2, position: 3 });
    // (8+2+1+4+5) / (100+300+50+100+20); (3·100 + 7·300 + 9·50 + 5·100 + 1·20) / 570
    expect(figuresOver(days, window, 'site')).toEqual({ clicks: 20, impressions: 570, ctr: 0.0351, position: 5.91 });
    expect(figuresOver(days, window, new Set(['a']))).toEqual({
      clicks: 14,
      impressions: 500,
      ctr: 0.028,
      position: 5.8,
    });
    expect(figuresOver(days, window, new Set(['a', 'b']))).toEqual({
      clicks: 15,
      impressions: 550,
      ctr: 0.0273,
      position: 6.09,
    });
    expect(figuresOver(days, window, new Set(['nowhere']))).toEqual({
      clicks: 0,
      impressions: 0,
      ctr: null,
      position: null,
    });
  });

  it('compares the window with the one before', () => {
    const now = figuresOver(days, window, new Set(['a']));
    const before = figuresOver(days, previous, new Set(['a']));
    expect(deltaOf(now, before)).toEqual({
      clicks: -26,
      clicks_change: -0.65,
      impressions: 300,
      ctr: -0.172,
      position: 2.8,
    });
    const none = { clicks: 0, impressions: 0, ctr: null, position: null };
    expect(deltaOf(now, none)).toEqual({
      clicks: 14,
      clicks_change: null,
      impressions: 500,
      ctr: null,
      position: null,
    });
  });

  it("keeps each of the site's pages, by id, with the URL its last day gives", () => {
    expect([...pagesOver(days, window)]).toEqual([
      [
        'a',
        {
          url: 'https://example.com/articles/a',
          page: { type: 'article', id: 'a' },
          clicks: 14,
          impressions: 500,
          ctr: 0.028,
          position: 5.8,
        },
      ],
      [
        'b',
        {
          url: 'https://example.com/articles/b',
          page: { type: 'article', id: 'b' },
          clicks: 1,
          impressions: 50,
          ctr: 0.02,
          position: 9,
        },
      ],
    ]);
  });

  it("lists a page's queries, each query's pages across the site, and the untracked queries as candidates", () => {
    const { pages, queries, candidates } = queriesAndPages(days, window, new Set(['a']), LIMITS_OF_LISTS);
    expect(pages).toEqual([
      {
        url: 'https://example.com/articles/a',
        page: { type: 'article', id: 'a' },
        clicks: 14,
        impressions: 500,
        ctr: 0.028,
        position: 5.8,
        queries: [
          { query: 'shoes', clicks: 12, impressions: 200, ctr: 0.06, position: 4 },
          { query: 'boots', clicks: 2, impressions: 300, ctr: 0.0067, position: 7 },
        ],
      },
    ]);
    // "shoes" counts page a's share in the scope, and lists page b beside it.
    expect(queries).toEqual([
      {
        query: 'shoes',
        tracked: true,
        clicks: 12,
        impressions: 200,
        ctr: 0.06,
        position: 4,
        pages: [
          { url: 'https://example.com/articles/a', clicks: 12, impressions: 200, ctr: 0.06, position: 4 },
          { url: 'https://example.com/articles/b', clicks: 1, impressions: 50, ctr: 0.02, position: 9 },
        ],
      },
      {
        query: 'boots',
        tracked: false,
        clicks: 2,
        impressions: 300,
        ctr: 0.0067,
        position: 7,
        pages: [{ url: 'https://example.com/articles/a', clicks: 2, impressions: 300, ctr: 0.0067, position: 7 }],
      },
    ]);
    expect(candidates).toEqual([{ query: 'boots', clicks: 2, impressions: 300, ctr: 0.0067, position: 7 }]);
  });

  it('covers every page for the site, most impressions first among candidates, within the limits', () => {
    const site = queriesAndPages(days, window, 'site', { pages: 2, queries: 1, candidates: 5 });
    expect(site.pages.map((p) => [p.url, p.clicks, p.queries.map((q) => q.query)])).toEqual([
      ['https://example.com/articles/a', 14, ['shoes']],
      ['https://example.com/articles/listing', 5, ['sale']],
    ]);
    expect(site.queries.map((q) => [q.query, q.clicks])).toEqual([['shoes', 13]]);
    expect(site.candidates.map((q) => [q.query, q.impressions])).toEqual([
      ['boots', 300],
      ['sale', 20],
    ]);
  });
});

describe("a page's figures in the reply", () => {
  it("come from the days' pages, the URLs of one page counted once, the pairs only for its queries", () => {
    // Page x under two URLs; the day's pairs (capped) hold only part of its clicks.
    const day = searchDay('2026-03-04', [{ page: 'x', query: 'shoes', clicks: 3, impressions: 30, position: 2 }]);
    const pages = [
      {
        url: 'https://example.com/x',
        page: { type: 'article' as const, id: 'x' },
        clicks: 10,
        impressions: 100,
        position: 2,
        devices: {},
      },
      {
        url: 'https://example.com/x/',
        page: { type: 'article' as const, id: 'x' },
        clicks: 5,
        impressions: 100,
        position: 4,
        devices: {},
      },
    ];
    const capped = {
      ...day,
      pages,
      pairs: [
        [0, 0, 2, 20, 2],
        [1, 0, 1, 10, 2],
      ] as typeof day.pairs,
    };
    const window = { from: '2026-03-04', to: '2026-03-04' };
    const site = queriesAndPages([capped], window, 'site', LIMITS_OF_LISTS);
    const page = figuresOver([capped], window, new Set(['x']));
    expect(page).toEqual({ clicks: 15, impressions: 200, ctr: 0.075, position: 3 });
    expect(site.pages).toEqual([
      {
        url: 'https://example.com/x/',
        page: { type: 'article', id: 'x' },
        ...page,
        queries: [{ query: 'shoes', clicks: 3, impressions: 30, ctr: 0.1, position: 2 }],
      },
    ]);
    expect(site.queries[0]?.pages).toEqual([
      { url: 'https://example.com/x/', clicks: 3, impressions: 30, ctr: 0.1, position: 2 },
    ]);
  });
});

describe('cannibalisation', () => {
  it("lists queries two or more of the site's pages each hold 20 % of, tracked first, with their shares", () => {
    const day = searchDay('2026-03-04', [
      // "shoes" (tracked): a 150, b 50 (exactly 20 %), c 49 (19.7 %: not listed beside them).
      { page: 'a', query: 'shoes', tracked: true, clicks: 5, impressions: 150, position: 2 },
      { page: 'b', query: 'shoes', tracked: true, clicks: 1, impressions: 50, position: 6 },
      { page: null, query: 'shoes', tracked: true, clicks: 0, impressions: 49, position: 9 },
      // "boots" (untracked, more impressions): a 600, b 400.
      { page: 'a', query: 'boots', clicks: 9, impressions: 600, position: 3 },
      { page: 'b', query: 'boots', clicks: 4, impressions: 400, position: 4 },
      // "socks": b holds 90 %.
      { page: 'a', query: 'socks', clicks: 0, impressions: 10, position: 8 },
      { page: 'b', query: 'socks', clicks: 3, impressions: 90, position: 2 },
    ]);
    const window = { from: '2026-03-04', to: '2026-03-04' };
    expect(LIMITS.trafficCannibalisationShare).toBe(0.2);
    expect(queriesAndPages([day], window, 'site', LIMITS_OF_LISTS).cannibalisation).toEqual([
      {
        query: 'shoes',
        tracked: true,
        impressions: 249,
        pages: [
          { url: 'https://example.com/articles/a', impressions: 150, share: 0.6024 },
          { url: 'https://example.com/articles/b', impressions: 50, share: 0.2008 },
        ],
      },
      {
        query: 'boots',
        tracked: false,
        impressions: 1000,
        pages: [
          { url: 'https://example.com/articles/a', impressions: 600, share: 0.6 },
          { url: 'https://example.com/articles/b', impressions: 400, share: 0.4 },
        ],
      },
    ]);
    // A page's scope lists its queries only ("socks" and "boots" are page b's too; "shoes" is not page c's).
    expect(queriesAndPages([day], window, new Set(['b']), LIMITS_OF_LISTS).cannibalisation.map((q) => q.query)).toEqual(
      ['shoes', 'boots'],
    );
  });
});

describe("the site's own CTR by position", () => {
  it('buckets pairs by rounded position, a position under the impressions floor without a figure', () => {
    const days = searchDays('2026-03-01', 2, () => [
      { page: 'a', query: 'q1', clicks: 20, impressions: 50, position: 1.4 },
      { page: 'b', query: 'q2', clicks: 6, impressions: 60, position: 2.6 },
      { page: 'a', query: 'q3', clicks: 1, impressions: 40, position: 2 },
      { page: 'a', query: 'q4', clicks: 9, impressions: 49, position: 5 },
      { page: 'a', query: 'q5', clicks: 0, impressions: 500, position: 14 },
    ]);
    // Position 1: 40 / 100; position 3: 12 / 120; position 2: 80 impressions and position 5: 98, under 100.
    expect(LIMITS.ownCtrImpressionsMin).toBe(100);
    const own = ownCtrByPosition(days.map(positionCountsOf));
    expect(own).toEqual([0.4, null, 0.1, null, null, null, null, null, null, null]);
    const curve = ctrCurveOf(own);
    expect(curve.name).toBe('search_console');
    // Position 2 without a figure: the published 0.187 at the site's level (× 0.4 / 0.398).
    expect(curve.ctr.slice(0, 3)).toEqual([0.4, 0.1879, 0.1]);
  });

  it('has no curve without a figure at position 1', () => {
    expect(ctrCurveOf(ownCtrByPosition([]))).toMatchObject({ name: 'published:first-page-sage/2024' });
  });
});

describe('decay', () => {
  const at = (clicks: number, impressions: number, position: number | null) => ({
    clicks,
    impressions,
    ctr: impressions > 0 ? clicks / impressions : null,
    position,
  });

  it('flags a fall of 20 % or more from at least 20 clicks, with the clicks at risk', () => {
    expect(LIMITS.decayDropShare).toBe(0.2);
    expect(LIMITS.decayClicksMin).toBe(20);
    // 100 → 81 is 19 % down; 100 → 80 is 20 %; 19 clicks before is too few to say.
    expect(decayOf(at(100, 1000, 3), at(81, 1000, 3.1))).toBeNull();
    expect(decayOf(at(100, 1000, 3), at(80, 1000, 3))).toEqual({ clicks_at_risk: 20, figures_cause: 'ctr_fell' });
    expect(decayOf(at(19, 1000, 3), at(0, 1000, 3))).toBeNull();
    expect(decayOf(at(20, 1000, 3), at(0, 0, null))).toEqual({ clicks_at_risk: 20, figures_cause: null });
  });

  it('reads the cause from the figures in order: positions lost, then CTR, then demand', () => {
    // Worse by a whole position, CTR and impressions down too: positions come first.
    expect(decayOf(at(100, 1000, 3), at(50, 500, 4))?.figures_cause).toBe('positions_lost');
    // Steady (0.9 worse): CTR 0.1 → 0.05, impressions down too.
    expect(decayOf(at(100, 1000, 3), at(25, 500, 3.9))?.figures_cause).toBe('ctr_fell');
    // Steady, CTR 0.1 → 0.1, impressions 1000 → 500.
    expect(decayOf(at(100, 1000, 3), at(50, 500, 3))?.figures_cause).toBe('demand_fell');
    // CTR and impressions each down 15 %, clicks 28 %: neither alone explains it.
    expect(decayOf(at(100, 1000, 3), at(72, 850, 3))).toEqual({ clicks_at_risk: 28, figures_cause: null });
    // A better position by a whole one is no steady position: the figures say nothing.
    expect(decayOf(at(100, 1000, 5), at(25, 500, 4))?.figures_cause).toBeNull();
  });

  it('names the AI Overview where CTR fell and one appeared, a change where the figures say nothing', () => {
    const none = { aiOverview: false, changed: false };
    expect(decayCause('ctr_fell', { aiOverview: true, changed: false })).toBe('ai_overview');
    expect(decayCause('ctr_fell', none)).toBe('ctr_fell');
    expect(decayCause('positions_lost', { aiOverview: true, changed: true })).toBe('positions_lost');
    expect(decayCause('demand_fell', { aiOverview: true, changed: true })).toBe('demand_fell');
    expect(decayCause(null, { aiOverview: true, changed: true })).toBe('page_changed');
    expect(decayCause(null, none)).toBe('unknown');
  });

  it("keeps a queued unrefreshed page's first flag and clicks before; a measured page starts afresh", () => {
    const page = { type: 'article' as const, id: 'a' };
    const flag = {
      page,
      url: '/a',
      cause: 'unknown' as const,
      flagged_on: '2026-03-02',
      clicks_before: 90,
      clicks_now: 60,
    };
    const fresh = { ...flag, clicks_at_risk: 30, refreshed_at: null, measured: null };
    expect(flaggedEntry(undefined, flag)).toEqual(fresh);
    const queued = { ...fresh, flagged_on: '2026-03-01', clicks_before: 120, clicks_at_risk: 50 };
    expect(flaggedEntry(queued, flag)).toEqual({
      ...fresh,
      flagged_on: '2026-03-01',
      clicks_before: 120,
      clicks_at_risk: 60,
    });
    // Recovered past its first figures: nothing at risk, not a negative place.
    expect(flaggedEntry({ ...queued, clicks_before: 50 }, flag).clicks_at_risk).toBe(0);
    const measured = { outcome: 'recovered' as const, clicks_after: 100, measured_on: '2026-02-01' };
    expect(flaggedEntry({ ...queued, refreshed_at: '2026-01-01T00:00:00.000Z', measured }, flag)).toEqual(fresh);
  });

  it('measures a republish against the clicks before the drop', () => {
    expect(recoveryOf(100, 80)).toBe('recovered');
    expect(recoveryOf(100, 79)).toBe('not_recovered');
  });
});

describe('decay over the days stored', () => {
  // Page a: 10 clicks a day over the 28 days before, 5 a day over the last 28 (ending 2026-03-28).
  const days = searchDays('2026-02-01', 56, (i) => [
    { page: 'a', query: 'shoes', clicks: i < 28 ? 10 : 5, impressions: 100, position: 3 },
  ]);
  const without = (dates: string[]) => days.filter((day) => !dates.includes(day.date));

  it('judges each window on the days it holds, scaled to 28, from LIMITS.decayDaysMin of them', () => {
    expect(LIMITS.decayDaysMin).toBe(24);
    const all = decayedPages(days, '2026-03-28') ?? [];
    expect(all.map((d) => [d.page.id, d.clicks_before, d.decay.clicks_at_risk])).toEqual([['a', 280, 140]]);
    // Two days missing in each window: still judged, the figures scaled to 28 days.
    const two = without(['2026-02-10', '2026-02-11', '2026-03-20', '2026-03-21']);
    expect(decayedPages(two, '2026-03-28')).toEqual(all);
    // Ten days missing in the last window: not judged.
    const ten = without(Array.from({ length: 10 }, (_v, i) => dayAfter('2026-03-10', i)));
    expect(decayedPages(ten, '2026-03-28')).toBeNull();
    // Four missing (24 held) is judged; five (23 held) is not.
    expect(decayedPages(without(['2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05']), '2026-03-28')).toHaveLength(
      1,
    );
    expect(
      decayedPages(without(['2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05', '2026-02-06']), '2026-03-28'),
    ).toBeNull();
  });
});
