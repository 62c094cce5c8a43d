import type { RankRow, SerpRow } from '@cm/contract';
import { ctrCurveOf, landscapeMetrics, PUBLISHED_CTR_CURVE, rankHistory, visibilityOn } from '@cm/core';
import { given } from '../helpers/client';
import { checkedRankRow } from '../helpers/rank-rows';

/* Visibility as teams read it (packages/core/src/visibility.ts): of the most a site could have, beside clicks a day. */

const DAYS_A_MONTH = 365 / 12;

/** A site's own CTR by position, as Search Console would give it: no figure at position 3. */
const OWN_CTR = [0.5, 0.2, null, 0.05];

describe('the CTR curve', () => {
  it('is the published one without Search Console data, and says so', () => {
    expect(ctrCurveOf(null)).toBe(PUBLISHED_CTR_CURVE);
    expect(ctrCurveOf([])).toBe(PUBLISHED_CTR_CURVE);
    // No figure for position 1: nothing to measure visibility against.
    expect(ctrCurveOf([null, 0.2])).toBe(PUBLISHED_CTR_CURVE);
    expect(PUBLISHED_CTR_CURVE.name).toBe('published:first-page-sage/2024');
    expect(PUBLISHED_CTR_CURVE.ctr[0]).toBe(0.398);
  });

  it("is the site's own CTR by position when given, a position without a figure taking the published one at the site's level", () => {
    const own = ctrCurveOf(OWN_CTR);
    expect(own.name).toBe('search_console');
    // Position 3: 0.102 × 0.5 / 0.398; position 5: 0.051 × 0.5 / 0.398 = 0.0641, above 0.05 at 4, so 0.05.
    expect(own.ctr.slice(0, 5)).toEqual([0.5, 0.2, 0.1281, 0.05, 0.05]);
    expect(own.ctr).toHaveLength(PUBLISHED_CTR_CURVE.ctr.length);
  });

  it('never rates a lower position above a higher one, so a site fourth everywhere is not at 100 %', () => {
    // Own CTR at first place under the published figure at 4 (0.072), nothing else measured; a noisy 2nd.
    const low = ctrCurveOf([0.05, 0.06, null, null]);
    low.ctr.forEach((ctr, i) => expect(ctr).toBeLessThanOrEqual(low.ctr[i - 1] ?? ctr));
    expect(low.ctr.slice(0, 4)).toEqual([0.05, 0.05, 0.0128, 0.009]);
    expect(visibilityOn(low, [{ volume: 100, position: 4 }]).visibility_pct).toBe(18);
  });
});

describe('visibility', () => {
  it('is 100 % for a site first on every keyword, whatever the curve', () => {
    const first = [
      { volume: 1000, position: 1 },
      { volume: 30, position: 1 },
    ];
    expect(visibilityOn(PUBLISHED_CTR_CURVE, first).visibility_pct).toBe(100);
    expect(visibilityOn(ctrCurveOf(OWN_CTR), first).visibility_pct).toBe(100);
  });

  it('weighs each keyword by volume × CTR against first place, and estimates clicks a day from the curve', () => {
    const keywords = [
      { volume: 1000, position: 2 },
      { volume: 3000, position: 4 },
      { volume: 500, position: null },
    ];
    const [p1, p2, , p4] = PUBLISHED_CTR_CURVE.ctr;
    const published = visibilityOn(PUBLISHED_CTR_CURVE, keywords);
    expect(published.visibility_pct).toBeCloseTo((100 * (1000 * (p2! / p1!) + 3000 * (p4! / p1!))) / 4500, 2);
    expect(published.estimated_clicks_per_day).toBeCloseTo((1000 * p2! + 3000 * p4!) / DAYS_A_MONTH, 2);
    // The site's own curve replaces the published one for its estimates.
    const own = visibilityOn(ctrCurveOf(OWN_CTR), keywords);
    expect(own.visibility_pct).toBeCloseTo((100 * (1000 * (0.2 / 0.5) + 3000 * (0.05 / 0.5))) / 4500, 2);
    expect(own.estimated_clicks_per_day).toBeCloseTo((1000 * 0.2 + 3000 * 0.05) / DAYS_A_MONTH, 2);
  });

  it('is 0 with no volume, and a position past the curve earns nothing', () => {
    expect(visibilityOn(PUBLISHED_CTR_CURVE, [])).toEqual({ visibility_pct: 0, estimated_clicks_per_day: 0 });
    expect(visibilityOn(PUBLISHED_CTR_CURVE, [{ volume: 100, position: 40 }])).toEqual({
      visibility_pct: 0,
      estimated_clicks_per_day: 0,
    });
  });
});

const serp = (keyword: string, domains: string[]): SerpRow => ({
  keyword,
  locale: 'US/en',
  fetched_at: '2026-11-21T00:00:00.000Z',
  data_source: 'sandbox',
  items: domains.map((domain, i) => ({ position: i + 1, domain, url: `https://${domain}/`, title: domain })),
});

const keyword = (name: string, volume: number) => ({
  keyword: name,
  keyword_id: 1,
  is_idea: false,
  locale: 'US/en',
  volume,
  cpc_usd: 1,
  competition: 0.5,
  intent: 'commercial' as const,
});

describe("share of voice's visibility", () => {
  const keywords = [keyword('a', 1000), keyword('b', 3000)];
  const serps = [serp('a', ['site.com', 'rival.com']), serp('b', ['site.com', 'rival.com'])];
  const landscape = (own: ReadonlyArray<number | null> | null) =>
    landscapeMetrics({
      keywords,
      serpOf: (k) => serps.find((row) => row.keyword === k.keyword),
      siteDomain: 'site.com',
      competitors: ['rival.com'],
      ...(own ? { ctrCurve: ctrCurveOf(own) } : {}),
    }).sov;
  const domainOf = (sov: ReturnType<typeof landscape>, domain: string) =>
    given(
      sov.domains.find((d) => d.domain === domain),
      domain,
    );

  it('puts a site first on every keyword at 100 %, beside its share of voice and estimated clicks a day', () => {
    const sov = landscape(null);
    expect(sov.ctr_curve).toBe('published:first-page-sage/2024');
    const site = domainOf(sov, 'site.com');
    expect(site.visibility_pct).toBe(100);
    // Share of voice keeps its meaning: the share of searches the site's positions get.
    expect(site.sov).toBe(PUBLISHED_CTR_CURVE.ctr[0]);
    expect(site.estimated_clicks_per_day).toBeCloseTo((4000 * 0.398) / DAYS_A_MONTH, 2);
    expect(domainOf(sov, 'rival.com').visibility_pct).toBeCloseTo((100 * 0.187) / 0.398, 2);
  });

  it("says it used the site's own curve when given one", () => {
    const sov = landscape(OWN_CTR);
    expect(sov.ctr_curve).toBe('search_console');
    const site = domainOf(sov, 'site.com');
    expect(site.sov).toBe(0.5);
    expect(site.estimated_clicks_per_day).toBeCloseTo((4000 * 0.5) / DAYS_A_MONTH, 2);
    expect(domainOf(sov, 'rival.com').visibility_pct).toBe(40);
  });
});

describe("the rank history's visibility", () => {
  const row = (kw: string, day: string, domains: string[]): RankRow =>
    checkedRankRow(kw, day, {
      domains: domains.map((domain, i) => ({ domain, position: i + 1, url: `https://${domain}/` })),
      site_results: [],
    });
  const rows = [
    row('a', '2026-03-01', ['site.com', 'rival.com']),
    row('b', '2026-03-01', ['site.com', 'rival.com']),
    row('a', '2026-03-02', ['rival.com', 'site.com']),
    row('b', '2026-03-02', ['site.com']),
  ];
  const history = (own: ReadonlyArray<number | null> | null) =>
    rankHistory({
      days: ['2026-03-01', '2026-03-02', '2026-03-03'],
      keywords: [
        { keyword: 'a', locale: 'US/en', volume: 1000 },
        { keyword: 'b', locale: 'US/en', volume: 3000 },
      ],
      rowsOf: (k) => rows.filter((r) => r.keyword === k.keyword),
      siteDomain: 'site.com',
      competitors: ['rival.com'],
      pages: [],
      overCap: [],
      failed: [],
      ...(own ? { ctrCurve: ctrCurveOf(own) } : {}),
    });

  it('is 100 % on a day the site is first everywhere, per day beside estimated clicks a day, null without a check', () => {
    const out = history(null);
    expect(out.ctr_curve).toBe('published:first-page-sage/2024');
    const site = given(
      out.visibility.find((v) => v.is_site),
      'the site',
    );
    const [p1, p2] = PUBLISHED_CTR_CURVE.ctr;
    expect(site.visibility_pct[0]).toBe(100);
    expect(site.visibility_pct[1]).toBeCloseTo((100 * (1000 * (p2! / p1!) + 3000)) / 4000, 2);
    expect(site.visibility_pct[2]).toBeNull();
    expect(site.estimated_clicks_per_day[1]).toBeCloseTo((1000 * p2! + 3000 * p1!) / DAYS_A_MONTH, 2);
    expect(site.estimated_clicks_per_day[2]).toBeNull();
  });

  it("weighs by the site's own curve when given, and names it", () => {
    const out = history(OWN_CTR);
    expect(out.ctr_curve).toBe('search_console');
    const rival = given(
      out.visibility.find((v) => v.domain === 'rival.com'),
      'the rival',
    );
    expect(rival.visibility_pct[0]).toBe(40);
    expect(rival.estimated_clicks_per_day[1]).toBeCloseTo((1000 * 0.5) / DAYS_A_MONTH, 2);
  });
});
