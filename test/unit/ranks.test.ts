import type { RankRow } from '@cm/contract';
import { ctrAt, daysEndingOn, isDue, isPageUrl, keywordCadence, rankHistory, rankRowOf } from '@cm/core';
import { given } from '../helpers/client';
import { checkedRankRow } from '../helpers/rank-rows';

/* Rank tracking's rules (packages/core/src/ranks.ts). */

describe('when a scope is checked', () => {
  it('daily every day from the day it began, weekly on that weekday', () => {
    expect(isDue('daily', '2026-03-02', '2026-03-01')).toBe(false);
    expect(isDue('daily', '2026-03-02', '2026-03-02')).toBe(true);
    expect(isDue('daily', '2026-03-02', '2026-03-05')).toBe(true);
    const weekly = daysEndingOn('2026-03-23', 22).filter((day) => isDue('weekly', '2026-03-02', day));
    expect(weekly).toEqual(['2026-03-02', '2026-03-09', '2026-03-16', '2026-03-23']);
    expect(keywordCadence(['weekly', 'daily'])).toBe('daily');
    expect(keywordCadence(['weekly'])).toBe('weekly');
  });

  it('counts days across months and leap days', () => {
    expect(daysEndingOn('2028-03-01', 3)).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
  });
});

describe("a check's row", () => {
  it("keeps each domain's best position and URL, subdomains apart, and every result of the site's domain", () => {
    const row = rankRowOf({
      keyword: 'k',
      device: 'desktop',
      locale: 'US/en',
      day: '2026-03-02',
      checkedAt: '2026-03-02T06:05:00.000Z',
      dataSource: 'sandbox',
      depth: 20,
      siteDomain: 'shop.example',
      items: [
        { position: 3, domain: 'www.shop.example', url: 'https://www.shop.example/a', title: '' },
        { position: 1, domain: 'rival.com', url: 'https://rival.com/x', title: '' },
        { position: 5, domain: 'blog.shop.example', url: 'https://blog.shop.example/b', title: '' },
        { position: 2, domain: 'rival.com', url: 'https://rival.com/y', title: '' },
      ],
    });
    expect(row.domains).toEqual([
      { domain: 'rival.com', position: 1, url: 'https://rival.com/x' },
      { domain: 'shop.example', position: 3, url: 'https://www.shop.example/a' },
      { domain: 'blog.shop.example', position: 5, url: 'https://blog.shop.example/b' },
    ]);
    expect(row.site_results).toEqual([
      { position: 3, url: 'https://www.shop.example/a' },
      { position: 5, url: 'https://blog.shop.example/b' },
    ]);
  });

  it("finds a page's own URL on the site's domain, on its own path or this service's, and nowhere else", () => {
    const is = (url: string) => isPageUrl(url, 'shop.example', 'article', 'best shoes');
    expect(is('https://shop.example/articles/best%20shoes')).toBe(true);
    expect(is('https://www.shop.example/articles/best%20shoes/?utm=1#top')).toBe(true);
    expect(is('https://api.shop.example/sites/3/articles/best%20shoes')).toBe(true);
    expect(is('https://shop.example/questions/best%20shoes')).toBe(false);
    expect(is('https://evil.example/articles/best%20shoes')).toBe(false);
    expect(is('https://shop.example/articles/best%20shoes-2')).toBe(false);
    expect(is('not a url')).toBe(false);
  });
});

describe('the history', () => {
  const row = (keyword: string, day: string, domains: Array<[string, number]>): RankRow =>
    checkedRankRow(keyword, day, {
      depth: 10,
      domains: domains.map(([domain, position]) => ({ domain, position, url: `https://${domain}/${keyword}` })),
      site_results: domains
        .filter(([domain]) => domain === 'site.com')
        .map(([, position]) => ({ position, url: `https://site.com/articles/${keyword}` })),
    });
  const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
  const rows: Record<string, RankRow[]> = {
    a: [
      row('a', '2026-03-01', [
        ['site.com', 8],
        ['rival.com', 1],
      ]),
      row('a', '2026-03-03', [
        ['site.com', 2],
        ['rival.com', 3],
      ]),
    ],
    b: [row('b', '2026-03-01', [['rival.com', 2]]), row('b', '2026-03-03', [['site.com', 4]])],
  };
  const history = rankHistory({
    days,
    keywords: [
      { keyword: 'a', locale: 'US/en', volume: 1000 },
      { keyword: 'b', locale: 'US/en', volume: 500 },
    ],
    rowsOf: (k) => rows[k.keyword] ?? [],
    siteDomain: 'site.com',
    competitors: ['rival.com'],
    colors: new Map([['rival.com', '#112233']]),
    pages: [
      {
        page_id: 7,
        title: 'A',
        url: 'https://site.com/articles/a',
        type: 'article',
        slug: 'a',
        keywords: [{ keyword: 'a', locale: 'US/en', volume: 1000 }],
      },
    ],
    overCap: ['c'],
    failed: [
      { day: '2026-02-28', keyword: 'a', error: 'before the window' },
      { day: '2026-03-02', error: 'the run failed' },
      { day: '2026-03-02', keyword: 'b', error: 'no SERP' },
      { day: '2026-03-03', keyword: 'a', error: 'no SERP' },
    ],
  });

  it('aligns every series to the days, null where no check ran, and says on how many days there is data and which checks failed', () => {
    expect(history.coverage).toEqual({
      days: 3,
      days_with_data: 2,
      keywords_with_data: 2,
      // Newest first, the window's only; one without a keyword is the day's whole run.
      failed: [
        { day: '2026-03-03', keyword: 'a', error: 'no SERP' },
        { day: '2026-03-02', error: 'the run failed' },
        { day: '2026-03-02', keyword: 'b', error: 'no SERP' },
      ],
    });
    expect(given(history.keywords[0], 'the history.keywords[0]').positions).toEqual({
      'site.com': [8, null, 2],
      'rival.com': [1, null, 3],
    });
    expect(history.over_cap).toEqual(['c']);
  });

  it("weighs each domain's clicks by CTR × volume, and its share of the volume checked that day", () => {
    const site = given(
      history.visibility.find((v) => v.is_site),
      'the find',
    );
    expect(site.clicks[0]).toBeCloseTo(ctrAt(8) * 1000, 2);
    expect(site.clicks[1]).toBeNull();
    expect(site.clicks[2]).toBeCloseTo(ctrAt(2) * 1000 + ctrAt(4) * 500, 2);
    expect(site.sov[2]).toBeCloseTo((ctrAt(2) * 1000 + ctrAt(4) * 500) / 1500, 4);
    expect(history.visibility.find((v) => v.domain === 'rival.com')).toMatchObject({
      is_competitor: true,
      color: '#112233',
    });
  });

  it('names winners (a keyword entering the results counts as from past them) and domains up and down', () => {
    expect(history.winners).toEqual([
      { keyword: 'b', from: null, to: 4, change: 7 },
      { keyword: 'a', from: 8, to: 2, change: 6 },
    ]);
    expect(history.losers).toEqual([]);
    expect(history.domains_up.map((m) => m.domain)).toContain('site.com');
    expect(history.domains_down.map((m) => m.domain)).toContain('rival.com');
  });

  it("reads a published page's own positions from the site's results", () => {
    expect(history.pages).toEqual([
      {
        page_id: 7,
        title: 'A',
        url: 'https://site.com/articles/a',
        keywords: [{ keyword: 'a', positions: [8, null, 2] }],
      },
    ]);
  });
});

describe("the history's cannibalisation", () => {
  const check = (day: string, results: Array<[string, number]>, keyword = 'shoes'): RankRow =>
    checkedRankRow(keyword, day, {
      domains:
        results.length > 0 ? [{ domain: 'site.com', position: results[0]?.[1] ?? 1, url: results[0]?.[0] ?? '' }] : [],
      site_results: results.map(([url, position]) => ({ url, position })),
    });
  const a = 'https://site.com/articles/a';
  const b = 'https://site.com/articles/b';
  const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'];
  const rows: Record<string, RankRow[]> = {
    // a best, then both together (b best), then b alone, then a again: 1 day together, 2 swaps.
    shoes: [
      check('2026-03-01', [[a, 3]]),
      check('2026-03-02', [
        [b, 2],
        [a, 5],
      ]),
      check('2026-03-03', [[b, 4]]),
      check('2026-03-04', [[a, 1]]),
    ],
    // One URL every day: not cannibalised.
    boots: [check('2026-03-01', [[a, 2]], 'boots'), check('2026-03-04', [[a, 1]], 'boots')],
    // Two URLs taking turns past the curve's positions: no clicks to share.
    socks: [check('2026-03-01', [[a, 15]], 'socks'), check('2026-03-02', [[b, 18]], 'socks')],
  };
  const history = rankHistory({
    days,
    keywords: [
      { keyword: 'shoes', locale: 'US/en', volume: 100 },
      { keyword: 'boots', locale: 'US/en', volume: 100 },
      { keyword: 'socks', locale: 'US/en', volume: 100 },
    ],
    rowsOf: (k) => rows[k.keyword] ?? [],
    siteDomain: 'site.com',
    competitors: [],
    pages: [],
    overCap: [],
    failed: [],
  });

  it('reports a keyword two of the site URLs share: both URLs, their share of its CTR-weighted clicks and days as best, the days together and the swaps', () => {
    const clicksA = ctrAt(3) + ctrAt(5) + ctrAt(1);
    const clicksB = ctrAt(2) + ctrAt(4);
    expect(history.cannibalisation).toEqual([
      {
        keyword: 'shoes',
        locale: 'US/en',
        shared_days: 1,
        swaps: 2,
        urls: [
          { url: a, best_days: 2, share: Math.round((clicksA / (clicksA + clicksB)) * 10_000) / 10_000 },
          { url: b, best_days: 2, share: Math.round((clicksB / (clicksA + clicksB)) * 10_000) / 10_000 },
        ],
      },
      {
        keyword: 'socks',
        locale: 'US/en',
        shared_days: 0,
        swaps: 1,
        urls: [
          { url: a, best_days: 1, share: 0 },
          { url: b, best_days: 1, share: 0 },
        ],
      },
    ]);
  });
});
