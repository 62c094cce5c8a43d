import { PUBLISHED_CTR_CURVE } from '@cm/core';
import {
  Meter,
  SandboxKeywordData,
  SandboxSearchConsole,
  SandboxSerpQueue,
  sandboxSearchRows,
  SLIP_PLACES,
  type SandboxSearchRow,
} from '@cm/providers';

/*
 * The sandbox's Search Console: rows derived from the site's pages, where its rank checks place the site,
 * and its levers; the day's three reads of them, as Google counts.
 */

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
/** The day's rows of the queries Google names (the anonymised ones are the reads' alone). */
const rowsOn = async (date: string, ctx = context) => sandboxSearchRows(date, ctx).filter((row) => !row.anonymised);
const readsOn = (
  date: string,
  ctx: typeof context & { today?: string } = context,
  state: 'final' | 'fresh' = 'final',
) => searchConsole.dayRows(`sc-domain:${siteDomain}`, date, state, ctx, new Meter());

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

const sum = (rows: readonly { clicks: number; impressions: number }[], field: 'clicks' | 'impressions') =>
  rows.reduce((total, row) => total + row[field], 0);

it('answers the same reads for the same day, one call each, free, and names the sandbox with no service account', async () => {
  const meter = new Meter();
  const first = await searchConsole.dayRows('sc-domain:gsc.example.com', DAY, 'final', context, meter);
  expect(first.calls).toBe(3);
  expect(meter.calls).toEqual(
    Array(3).fill(expect.objectContaining({ provider: 'sandbox', endpoint: 'searchAnalytics.query', cost_usd: 0 })),
  );
  expect(await readsOn(DAY)).toEqual(first);
  expect(searchConsole).toMatchObject({ name: 'sandbox', serviceAccount: null });
  expect(first.queries.length).toBeGreaterThan(0);
});

it('answers no final rows for a day newer than the daily import day of its today, as Google does: one call', async () => {
  const asOf = (today: string) => ({ ...context, today });
  expect(await readsOn(DAY, asOf('2031-06-05'))).toEqual(await readsOn(DAY));
  expect(await readsOn(DAY, asOf('2031-06-04'))).toEqual({ totals: [], pages: [], queries: [], calls: 1 });
  const fresh = await readsOn(DAY, asOf('2031-06-04'), 'fresh');
  expect(fresh.totals.length).toBeGreaterThan(0);
});

it('reads the rows as Google does: the anonymised searches in the totals and the pages, never as a query', async () => {
  const rows = sandboxSearchRows(DAY, context);
  const { totals, pages, queries } = await readsOn(DAY);
  const anonymised = rows.filter((r) => r.anonymised);
  expect(sum(anonymised, 'impressions')).toBeGreaterThan(0);
  // The totals and pages count every search; the queries only the named ones.
  expect([sum(totals, 'clicks'), sum(totals, 'impressions')]).toEqual([sum(rows, 'clicks'), sum(rows, 'impressions')]);
  expect([sum(pages, 'clicks'), sum(pages, 'impressions')]).toEqual([sum(rows, 'clicks'), sum(rows, 'impressions')]);
  const named = rows.filter((r) => !r.anonymised);
  expect([sum(queries, 'clicks'), sum(queries, 'impressions')]).toEqual([
    sum(named, 'clicks'),
    sum(named, 'impressions'),
  ]);
  // One row per read's dimensions; a page's anonymised searches are seen where its first keyword is.
  expect(new Set(totals.map((r) => `${r.device} ${r.country}`)).size).toBe(totals.length);
  expect(new Set(pages.map((r) => `${r.page} ${r.device}`)).size).toBe(pages.length);
  expect(new Set(queries.map((r) => `${r.page} ${r.query}`)).size).toBe(queries.length);
  for (const row of anonymised) {
    const first = context.pages.find((p) => p.url === row.page)?.keywords[0];
    expect(row.query).toBe(first);
    const seen = named.find((r) => r.page === row.page && r.query === first && r.device === row.device);
    expect(row.position).toBe(seen?.position);
  }
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

it('asks one call per read of fewer than 25,000 rows, as Google pages them', async () => {
  const many = {
    siteDomain,
    pages: Array.from({ length: 500 }, (_v, i) =>
      page(`p${i}`, [`hiking boots ${i}`, `trail shoes ${i}`, `rain jacket ${i}`]),
    ),
  };
  const meter = new Meter();
  const { pages, queries, calls } = await searchConsole.dayRows('sc-domain:gsc.example.com', DAY, 'fresh', many, meter);
  // 500 pages of 6 queries each on 3 devices and 5 countries: rows the reads group, each read one page of rows.
  expect(queries.length).toBeGreaterThan(2_500);
  expect(pages.length).toBeGreaterThan(1_000);
  expect(calls).toBe(3);
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
  const meanPosition = (rows: readonly SandboxSearchRow[]) =>
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
