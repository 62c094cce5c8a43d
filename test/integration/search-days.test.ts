import { LIMITS, type SearchDay } from '@cm/contract';
import type { Store } from '@cm/store';
import { startTestStack, type TestStack } from '../helpers/local';

/* A site's Search Console days: one item a day, stored once final, read back by range, within 400 KB at the caps. */

let t: TestStack;
let store: Store;
beforeAll(async () => {
  t = await startTestStack();
  store = t.store;
}, 60_000);
afterAll(() => t.stop());

const dayOf = (date: string, data_state: SearchDay['data_state'], clicks: number): SearchDay => ({
  date,
  data_state,
  data_source: 'sandbox',
  imported_at: `${date}T09:00:00.000Z`,
  rows: 1,
  totals: { clicks, impressions: 10 * clicks, position: 3.5 },
  devices: { mobile: { clicks, impressions: 10 * clicks, position: 3.5 } },
  countries: [{ country: 'usa', clicks, impressions: 10 * clicks, position: 3.5 }],
  pages: [
    {
      url: 'https://example.com/articles/a',
      page: { type: 'article', id: 'a' },
      clicks,
      impressions: 10 * clicks,
      position: 3.5,
      devices: {},
    },
  ],
  queries: [{ query: 'a thing', tracked: true, clicks, impressions: 10 * clicks, position: 3.5 }],
  pairs: [[0, 0, clicks, 10 * clicks, 3.5]],
  left_out: { pages: 0, queries: 0, pairs: 0 },
});

it('stores a day once final: a repeat writes nothing, a fresh day is replaced, and a range reads them oldest first', async () => {
  const site = t.siteId;
  expect(await store.searchDays.put(site, dayOf('2026-10-02', 'fresh', 4))).toBe(true);
  expect(await store.searchDays.isFinal(site, '2026-10-02')).toBe(false);
  expect(await store.searchDays.put(site, dayOf('2026-10-02', 'final', 5))).toBe(true);
  expect(await store.searchDays.put(site, dayOf('2026-10-02', 'final', 6))).toBe(false);
  expect(await store.searchDays.isFinal(site, '2026-10-02')).toBe(true);
  expect(await store.searchDays.put(site, dayOf('2026-10-01', 'final', 3))).toBe(true);
  expect(await store.searchDays.put(site, dayOf('2026-10-04', 'final', 9))).toBe(true);

  const days = await store.searchDays.range(site, '2026-10-01', '2026-10-03');
  expect(days.map((d) => [d.date, d.totals.clicks])).toEqual([
    ['2026-10-01', 3],
    ['2026-10-02', 5],
  ]);
  expect(days[1]).toEqual(dayOf('2026-10-02', 'final', 5));
  // Another site's range is its own.
  expect(await store.searchDays.range(site + 1, '2026-10-01', '2026-10-31')).toEqual([]);
});

it('keeps a day at every cap under an item’s 400 KB', async () => {
  const base = dayOf('2026-10-05', 'final', 1);
  const long = (i: number) => `https://example.com/articles/a-long-slug-of-a-page-that-ranks-for-much-${i}`;
  const full: SearchDay = {
    ...base,
    pages: Array.from({ length: LIMITS.searchDayPages }, (_, i) => ({
      ...base.pages[0]!,
      url: long(i),
      page: { type: 'article', id: `a-long-slug-of-a-page-that-ranks-for-much-${i}` },
      devices: {
        desktop: { clicks: 123, impressions: 45678, position: 12.34 },
        mobile: { clicks: 123, impressions: 45678, position: 12.34 },
        tablet: { clicks: 1, impressions: 456, position: 12.34 },
      },
    })),
    queries: Array.from({ length: LIMITS.searchDayQueries }, (_, i) => ({
      ...base.queries[0]!,
      query: `a long question people ask google about the thing number ${i}`,
    })),
    pairs: Array.from({ length: LIMITS.searchDayPairs }, (_, i) => [i % 1000, (i * 7) % 1000, 12, 3456, 7.25]),
    countries: Array.from({ length: LIMITS.searchDayCountries }, (_, i) => ({
      ...base.countries[0]!,
      country: `c${i}`,
    })),
  };
  expect(await store.searchDays.put(t.siteId, full)).toBe(true);
  expect(await store.searchDays.range(t.siteId, '2026-10-05', '2026-10-05')).toEqual([full]);
});
