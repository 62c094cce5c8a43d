import { LIMITS } from '@cm/contract';
import {
  pageOfUrl,
  propertyName,
  emptyDayIsFinal,
  searchBackfillDays,
  searchConsoleToday,
  searchPlanDays,
  searchDayOf,
  searchImportDay,
  tokenOfVerificationFile,
  trackedDay,
  verificationFileBody,
  type SearchDayRows,
} from '@cm/core';

/* A Search Console day made of its rows, the pages its URLs are, and the properties a site may connect. */

/** A (page, query, device, country) row, as Google counts a search that names its query. */
interface SearchRow {
  page: string;
  query: string;
  device: 'desktop' | 'mobile' | 'tablet';
  country: string;
  clicks: number;
  impressions: number;
  position: number;
}
const row = (over: Partial<SearchRow>): SearchRow => ({
  page: 'https://shop.example.com/articles/pegs',
  query: 'tent pegs',
  device: 'desktop',
  country: 'usa',
  clicks: 1,
  impressions: 10,
  position: 3,
  ...over,
});
/** The three reads of rows that all name their query (none anonymised): each read has every row. */
const readsOf = (rows: readonly SearchRow[]): SearchDayRows => ({
  totals: rows.map(({ page: _p, query: _q, ...total }) => total),
  pages: rows.map(({ query: _q, country: _c, ...page }) => page),
  queries: rows.map(({ device: _d, country: _c, ...query }) => query),
});
const input = (rows: SearchRow[] | SearchDayRows) => ({
  date: '2026-11-20',
  state: 'final' as const,
  dataSource: 'sandbox',
  importedAt: '2026-11-23T06:00:00.000Z',
  rows: Array.isArray(rows) ? readsOf(rows) : rows,
  pageOf: (url: string) => (url.endsWith('/pegs') ? { type: 'article' as const, id: 'a1' } : null),
});

describe('searchDayOf', () => {
  it('sums clicks and impressions, weighs positions by impressions, per device, country, page, query and pair', () => {
    const day = searchDayOf(
      input([
        row({ impressions: 30, clicks: 3, position: 2 }),
        row({ device: 'mobile', country: 'gbr', impressions: 10, clicks: 0, position: 6 }),
        row({ page: 'https://shop.example.com/other', query: 'pegs', impressions: 5, clicks: 1, position: 9 }),
      ]),
    );
    expect(day.totals).toEqual({ clicks: 4, impressions: 45, position: Math.round(((60 + 60 + 45) / 45) * 100) / 100 });
    expect(day.devices).toEqual({
      desktop: { clicks: 4, impressions: 35, position: Math.round(((60 + 45) / 35) * 100) / 100 },
      mobile: { clicks: 0, impressions: 10, position: 6 },
    });
    expect(day.countries.map((c) => c.country)).toEqual(['usa', 'gbr']);
    expect(day.pages[0]).toEqual({
      url: 'https://shop.example.com/articles/pegs',
      page: { type: 'article', id: 'a1' },
      clicks: 3,
      impressions: 40,
      position: 3,
      devices: {
        desktop: { clicks: 3, impressions: 30, position: 2 },
        mobile: { clicks: 0, impressions: 10, position: 6 },
      },
    });
    expect(day.pages[1]?.page).toBeNull();
    expect(day.queries).toEqual([
      { query: 'tent pegs', tracked: false, clicks: 3, impressions: 40, position: 3 },
      { query: 'pegs', tracked: false, clicks: 1, impressions: 5, position: 9 },
    ]);
    expect(day.pairs).toEqual([
      [0, 0, 3, 40, 3],
      [1, 1, 1, 5, 9],
    ]);
    expect(day).toMatchObject({ rows: 9, left_out: { pages: 0, queries: 0, pairs: 0 }, data_state: 'final' });
  });

  it('counts the searches Google anonymises in the totals, devices, countries and pages, never as a query', () => {
    const named = row({ impressions: 30, clicks: 3, position: 2 });
    // A search too rare to name: in the reads without the query, absent from the (page, query) read.
    const anonymised = row({ query: '', device: 'mobile', country: 'gbr', impressions: 10, clicks: 2, position: 4 });
    const reads = readsOf([named, anonymised]);
    const day = searchDayOf(input({ ...reads, queries: readsOf([named]).queries }));
    expect(day.totals).toEqual({ clicks: 5, impressions: 40, position: 2.5 });
    expect(day.devices.mobile).toEqual({ clicks: 2, impressions: 10, position: 4 });
    expect(day.countries.map((c) => [c.country, c.clicks])).toEqual([
      ['usa', 3],
      ['gbr', 2],
    ]);
    expect(day.pages).toEqual([expect.objectContaining({ clicks: 5, impressions: 40, position: 2.5 })]);
    expect(day.queries).toEqual([{ query: 'tent pegs', tracked: false, clicks: 3, impressions: 30, position: 2 }]);
    expect(day.pairs).toEqual([[0, 0, 3, 30, 2]]);
  });

  it('has no position without impressions', () => {
    expect(searchDayOf(input([])).totals).toEqual({ clicks: 0, impressions: 0, position: null });
  });

  it('keeps the most impressions up to each cap and counts what it left out, which still counts in the totals', () => {
    const many = Array.from({ length: LIMITS.searchDayPages + 5 }, (_v, i) =>
      row({ page: `https://shop.example.com/p${i}`, query: `q${i}`, impressions: i + 1, clicks: 0 }),
    );
    const day = searchDayOf(input(many));
    expect(day.pages).toHaveLength(LIMITS.searchDayPages);
    expect(day.pages[0]?.url).toBe(`https://shop.example.com/p${LIMITS.searchDayPages + 4}`);
    expect(day.left_out).toEqual({ pages: 5, queries: 5, pairs: 5 });
    expect(day.totals.impressions).toBe(many.reduce((n, r) => n + r.impressions, 0));
    const pairs = Array.from({ length: LIMITS.searchDayPairs + 3 }, (_v, i) =>
      row({ query: `q${i % 700}`, page: `https://shop.example.com/p${Math.floor(i / 700)}`, impressions: 1 }),
    );
    const paired = searchDayOf(input(pairs));
    expect(paired.pairs).toHaveLength(LIMITS.searchDayPairs);
    expect(paired.left_out.pairs).toBe(3);
    const countries = searchDayOf(input(Array.from({ length: 25 }, (_v, i) => row({ country: `c${i}` }))));
    expect(countries.countries).toHaveLength(LIMITS.searchDayCountries);
  });

  it('marks the queries a keyword row has, normalized', () => {
    const day = searchDayOf(input([row({ query: 'Tent  Pegs' }), row({ query: 'stakes' })]));
    expect(trackedDay(day, new Set(['tent pegs'])).queries.map((q) => [q.query, q.tracked])).toEqual([
      ['Tent  Pegs', true],
      ['stakes', false],
    ]);
  });
});

describe('pageOfUrl', () => {
  const pages = new Map([
    ['article\npegs', { type: 'article' as const, id: 'a1' }],
    ['question\nwhy tents', { type: 'question' as const, id: 'q1' }],
  ]);
  const of = (url: string) => pageOfUrl(url, 'shop.example.com', (type, slug) => pages.get(`${type}\n${slug}`) ?? null);
  it("finds the site's page by its path on the domain, a www, a trailing slash or a query aside", () => {
    expect(of('https://shop.example.com/articles/pegs')).toEqual({ type: 'article', id: 'a1' });
    expect(of('https://www.shop.example.com/articles/pegs/?utm=x')).toEqual({ type: 'article', id: 'a1' });
    expect(of('https://shop.example.com/questions/why%20tents')).toEqual({ type: 'question', id: 'q1' });
  });
  it('is null for another domain, another path, an unknown slug or no URL', () => {
    for (const url of [
      'https://elsewhere.example.com/articles/pegs',
      'https://shop.example.com/',
      'https://shop.example.com/articles/none',
      'https://shop.example.com/articles/%E0%A4%A',
      'not a url',
    ])
      expect(of(url)).toBeNull();
  });
});

describe('properties and verification', () => {
  it("reads a domain property's and a URL-prefix property's domain, and nothing else", () => {
    expect(propertyName('sc-domain:Shop.Example.com')).toEqual({
      kind: 'domain',
      host: 'shop.example.com',
      canonical: 'sc-domain:shop.example.com',
    });
    expect(propertyName('https://WWW.Shop.example.com/')).toEqual({
      kind: 'prefix',
      host: 'www.shop.example.com',
      canonical: 'https://www.shop.example.com/',
    });
    expect(propertyName('sc-domain:münchen.de')?.canonical).toBe('sc-domain:xn--mnchen-3ya.de');
    for (const property of [
      'sc-domain:shop.example.com/x',
      'sc-domain:',
      'sc-domain:exa%zz.com',
      'http://shop.example.com/',
      'https://shop.example.com',
      'https://shop.example.com/blog/',
      'https://shop.example.com:8443/',
      'https://user@shop.example.com/',
      'shop.example.com',
    ])
      expect(propertyName(property)).toBeNull();
  });
  it("names a verification file's token, and what the file holds", () => {
    expect(tokenOfVerificationFile('googleAbc-1_2.html')).toBe('Abc-1_2');
    expect(tokenOfVerificationFile('google.html')).toBeNull();
    expect(tokenOfVerificationFile('googleab cd.html')).toBeNull();
    expect(tokenOfVerificationFile('other.html')).toBeNull();
    expect(verificationFileBody('Abc')).toBe('google-site-verification: googleAbc.html');
  });
  it('imports the day three days back, and 56 days on connect ending there', () => {
    expect(searchImportDay('2026-03-02')).toBe('2026-02-27');
    const days = searchBackfillDays('2026-03-02');
    expect([days.length, days[0], days.at(-1)]).toEqual([56, '2026-01-03', '2026-02-27']);
  });
  it("counts Search Console's days in Pacific time, standard and daylight", () => {
    expect(searchConsoleToday(new Date('2026-03-02T00:10:00Z'))).toBe('2026-03-01');
    expect(searchConsoleToday(new Date('2026-03-02T08:00:00Z'))).toBe('2026-03-02');
    expect(searchConsoleToday(new Date('2026-07-02T06:59:00Z'))).toBe('2026-07-01');
    expect(searchConsoleToday(new Date('2026-07-02T07:00:00Z'))).toBe('2026-07-02');
  });
  it('plans the last three days each day, and takes no rows as a final answer only from the oldest of them on', () => {
    expect(searchPlanDays('2026-03-02')).toEqual(['2026-02-27', '2026-02-26', '2026-02-25']);
    expect(
      ['2026-02-27', '2026-02-26', '2026-02-25', '2026-01-01'].map((d) => emptyDayIsFinal(d, '2026-03-02')),
    ).toEqual([false, false, true, true]);
  });
});
