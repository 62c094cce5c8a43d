import { PUBLISHED_CTR_CURVE } from '@cm/core';
import {
  Meter,
  SandboxKeywordData,
  SandboxSearchConsole,
  SandboxSerpQueue,
  SLIP_PLACES,
  type SearchConsoleRow,
} from '@cm/providers';

/* The sandbox's Search Console: rows derived from the site's pages, where its rank checks place the site, and its levers. */

const searchConsole = new SandboxSearchConsole();
const siteDomain = 'gsc.example.com';
const page = (slug: string, keywords: string[]) => ({ url: `https://${siteDomain}/articles/${slug}`, keywords });
/** The site's locale: the rank checks' and Search Console's keywords ranked in it. */
const LOCALE = 'US/en';
const context = {
  siteDomain,
  locale: LOCALE,
  pages: [page('pegs', ['tent pegs', 'tent stakes']), page('stoves', ['camping stove'])],
};
const DAY = '2031-06-02';
const rowsOn = async (date: string, ctx = context) =>
  (await searchConsole.dayRows(`sc-domain:${siteDomain}`, date, 'final', ctx, new Meter())).rows;

/** The days from `from`, `n` of them. */
const days = (from: string, n: number) =>
  Array.from({ length: n }, (_v, i) =>
    new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
  );

/** The site's position in its rank check of `keyword` on `day` (desktop), as the sandbox's queue places it. */
async function checkedPosition(
  keyword: string,
  day: string,
  pages = context.pages,
  device: 'desktop' | 'mobile' = 'desktop',
) {
  const items = await new SandboxKeywordData().serpOrganic(keyword, LOCALE, 100, new Meter());
  const placed = new SandboxSerpQueue().placeTracked(items, keyword, LOCALE, {
    siteDomain,
    competitors: [],
    day,
    pages,
    device,
  });
  return placed.find((item) => item.domain === siteDomain)?.position ?? null;
}

const sum = (rows: readonly SearchConsoleRow[], field: 'clicks' | 'impressions') =>
  rows.reduce((total, row) => total + row[field], 0);

it('answers the same rows for the same day, is free, and names the sandbox with no service account', async () => {
  const meter = new Meter();
  const first = await searchConsole.dayRows('sc-domain:gsc.example.com', DAY, 'final', context, meter);
  expect(first.calls).toBe(1);
  expect(meter.calls).toEqual([
    expect.objectContaining({ provider: 'sandbox', endpoint: 'searchAnalytics.query', cost_usd: 0 }),
  ]);
  expect(await rowsOn(DAY)).toEqual(first.rows);
  expect(searchConsole).toMatchObject({ name: 'sandbox', serviceAccount: null });
  expect(first.rows.length).toBeGreaterThan(0);
});

it('answers no final rows for a day newer than the daily import day of its today, as Google does', async () => {
  const asOf = (today: string) => ({ ...context, today });
  expect(await rowsOn(DAY, asOf('2031-06-05'))).toEqual(await rowsOn(DAY));
  expect(await rowsOn(DAY, asOf('2031-06-04'))).toEqual([]);
  const fresh = await searchConsole.dayRows('sc-domain:gsc.example.com', DAY, 'fresh', asOf('2031-06-04'), new Meter());
  expect(fresh.rows.length).toBeGreaterThan(0);
});

it("places each page's keywords where that day's rank check places the site, per device (a tablet as a desktop)", async () => {
  const checked: string[] = [];
  for (const day of days(DAY, 5)) {
    const rows = await rowsOn(day);
    for (const keyword of ['tent pegs', 'camping stove']) {
      const [desktop, mobile] = [
        await checkedPosition(keyword, day),
        await checkedPosition(keyword, day, context.pages, 'mobile'),
      ];
      const ofKeyword = rows.filter((r) => r.query === keyword);
      expect(ofKeyword.length).toBeGreaterThan(0);
      for (const row of ofKeyword) expect(row.position).toBe(row.device === 'mobile' ? mobile : desktop);
      checked.push(...ofKeyword.map((r) => r.device));
    }
  }
  expect(new Set(checked)).toEqual(new Set(['desktop', 'mobile', 'tablet']));
});

it('splits impressions by device and country, clicks at the published CTR curve, and has long-tail queries no keyword names', async () => {
  const rows = await rowsOn(DAY);
  expect(new Set(rows.map((r) => r.device))).toEqual(new Set(['desktop', 'mobile', 'tablet']));
  expect(new Set(rows.map((r) => r.country)).size).toBeGreaterThan(1);
  for (const row of rows) {
    expect(row.impressions).toBeGreaterThan(0);
    expect(row.clicks).toBe(Math.round(row.impressions * (PUBLISHED_CTR_CURVE.ctr[row.position - 1] ?? 0)));
    expect(row.ctr).toBeCloseTo(row.clicks / row.impressions, 10);
    expect(row.date).toBe(DAY);
    expect(context.pages.map((p) => p.url)).toContain(row.page);
  }
  const named = new Set(context.pages.flatMap((p) => p.keywords));
  const longTail = new Set(rows.filter((r) => !named.has(r.query)).map((r) => r.query));
  expect(longTail.size).toBeGreaterThan(0);
  // Mobile has most searches.
  const by = (device: string) =>
    sum(
      rows.filter((r) => r.device === device),
      'impressions',
    );
  expect(by('mobile')).toBeGreaterThan(by('desktop'));
  expect(by('desktop')).toBeGreaterThan(by('tablet'));
});

it('asks one call per 25,000 rows', async () => {
  const many = {
    siteDomain,
    pages: Array.from({ length: 500 }, (_v, i) =>
      page(`p${i}`, [`hiking boots ${i}`, `trail shoes ${i}`, `rain jacket ${i}`]),
    ),
  };
  const meter = new Meter();
  const { rows, calls } = await searchConsole.dayRows('sc-domain:gsc.example.com', DAY, 'fresh', many, meter);
  expect(calls).toBe(Math.ceil(rows.length / 25_000));
  expect(calls).toBeGreaterThan(1);
  expect(meter.calls).toHaveLength(calls);
});

describe('levers', () => {
  const LEVER_DAY = '2031-07-01';
  const before = days('2031-06-03', 28);
  const after = days(LEVER_DAY, 28);
  const windowOf = async (keyword: string, window: readonly string[]) => {
    const ctx = { siteDomain, locale: LOCALE, pages: [page('lever', [keyword])] };
    return (await Promise.all(window.map((day) => rowsOn(day, ctx)))).flat().filter((r) => r.query === keyword);
  };
  const meanPosition = (rows: readonly SearchConsoleRow[]) =>
    rows.reduce((total, r) => total + r.position * r.impressions, 0) / sum(rows, 'impressions');

  it('fading halves the searches from its day, its rank checks as without it', async () => {
    const keyword = 'pegs fading 20310701';
    const [was, now] = [await windowOf(keyword, before), await windowOf(keyword, after)];
    expect(sum(now, 'impressions') / sum(was, 'impressions')).toBeLessThan(0.7);
    // Its rank checks are as without the lever.
    for (const day of after.slice(0, 3))
      for (const row of (await windowOf(keyword, [day])).filter((r) => r.device !== 'mobile'))
        expect(row.position).toBe(await checkedPosition(keyword, day, [page('lever', [keyword])]));
  });

  it('slipping drops the site in the rank checks and Search Console both, from its day', async () => {
    const keyword = 'ropes slipping 20310701';
    const pages = [page('lever', [keyword])];
    const [was, now] = [await windowOf(keyword, before), await windowOf(keyword, after)];
    expect(meanPosition(now) - meanPosition(was)).toBeGreaterThan(SLIP_PLACES / 2);
    expect(sum(now, 'clicks') / sum(was, 'clicks')).toBeLessThan(0.8);
    const compared = [];
    for (const day of [...before.slice(-2), ...after.slice(0, 2)])
      for (const row of (await windowOf(keyword, [day])).filter((r) => r.device !== 'mobile')) {
        expect(row.position).toBe(await checkedPosition(keyword, day, pages));
        compared.push(row);
      }
    expect(compared.length).toBeGreaterThan(0);
  });

  it('zeroclick halves the clicks at the same impressions and positions, from its day', async () => {
    const keyword = 'ropes zeroclick 20310701';
    const [was, now] = [await windowOf(keyword, before), await windowOf(keyword, after)];
    expect(sum(now, 'clicks') / sum(now, 'impressions')).toBeLessThan(
      (0.7 * sum(was, 'clicks')) / sum(was, 'impressions'),
    );
    expect(Math.abs(meanPosition(now) - meanPosition(was))).toBeLessThan(1);
  });

  it('holds nothing without a day, or before it', async () => {
    const plain = await windowOf('tent pegs fading', after);
    const early = await windowOf('tent pegs fading 20310801', after);
    expect(sum(plain, 'impressions')).toBeGreaterThan(0);
    expect(sum(early, 'impressions')).toBeGreaterThan(0);
    const [was, now] = [await windowOf('tent pegs fading 20310801', before), early];
    expect(sum(now, 'impressions') / sum(was, 'impressions')).toBeGreaterThan(0.7);
  });
});
