import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS, type SearchDay } from '@cm/contract';
import { positionCountsOf } from '@cm/core';
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

it("reads the days' counts by position for the site's CTR curve in one Query without their figures; a day stored before its counts whole", async () => {
  const site = t.siteId + 7;
  const second: SearchDay = { ...dayOf('2026-09-02', 'final', 8), pairs: [[0, 0, 8, 80, 2.6]] };
  const days = [dayOf('2026-09-01', 'final', 3), second];
  for (const day of days) await store.searchDays.put(site, day);
  const key = (date: string) => ({ pk: `SITE#${site}#SEARCH`, sk: `DAY#${date}` });
  const stored = await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key: key('2026-09-02') }));
  expect(stored.Item?.position_counts).toEqual(positionCountsOf(second));
  const expected = days.map((day) => ({ date: day.date, ...positionCountsOf(day) }));
  expect(expected[0]?.impressions.slice(0, 4)).toEqual([0, 0, 0, 30]);
  expect(expected[1]?.clicks.slice(0, 4)).toEqual([0, 0, 8, 0]);

  // The figures are not read: a day whose figures cannot be read still gives its counts.
  const update = (date: string, UpdateExpression: string, values?: Record<string, unknown>) =>
    t.db.send(
      new UpdateCommand({
        TableName: t.stack.tableName,
        Key: key(date),
        UpdateExpression,
        ExpressionAttributeNames: values ? { '#day': 'day' } : undefined,
        ExpressionAttributeValues: values,
      }),
    );
  const figures = stored.Item?.day;
  await update('2026-09-02', 'SET #day = :junk', { ':junk': Buffer.from('not gzip') });
  const recording = t.stack.dynamo.record();
  expect(await store.searchDays.positionCounts(site, '2026-09-01', '2026-09-30')).toEqual(expected);
  expect(recording.operations()).toEqual(['Query']);
  await expect(store.searchDays.range(site, '2026-09-02', '2026-09-02')).rejects.toThrow();
  // A day stored before the counts were: the days are read whole, once more.
  await update('2026-09-02', 'SET #day = :figures', { ':figures': figures });
  await update('2026-09-01', 'REMOVE position_counts');
  expect(await store.searchDays.positionCounts(site, '2026-09-01', '2026-09-30')).toEqual(expected);
  expect(recording.operations()).toEqual(['Query', 'Query', 'UpdateItem', 'UpdateItem', 'Query', 'Query']);
  recording.stop();
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
