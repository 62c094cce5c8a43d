import type { Locator } from 'playwright-core';
import { daysEndingOn, utcDay } from '@cm/core';
import type { Store } from '@cm/store';
import { evaluateDecay } from '@cm/tools';
import { fmtChange, fmtInt, fmtNum, fmtPoints, fmtShare } from '../../packages/dashboard/app/format';
import type { SearchTraffic } from '../../packages/dashboard/app/types';
import { searchDays, type SearchRow } from './search-days';

/*
 * A site's Search Console days for the browser tests (the dashboard's Search traffic view and the search
 * traffic App), what search_traffic answers of them as they must be drawn, and what was drawn, read from
 * the page: the tests hold one against the other.
 */

/** The rows of day i of 56 (the 28 days before, i < 28, then the last 28): three pages decay, one holds. */
function rowsOf(i: number): SearchRow[] {
  const before = i < 28;
  return [
    // Clicks 10 → 5 a day as the position falls 3 → 5: positions lost, 140 clicks at risk.
    {
      page: 'trail-guide',
      query: 'trail running shoes',
      tracked: true,
      clicks: before ? 10 : 5,
      impressions: 100,
      position: before ? 3 : 5,
    },
    // Impressions halved at a steady position and CTR: demand fell, 84 at risk.
    {
      page: 'marathon',
      query: 'marathon shoes',
      tracked: true,
      clicks: before ? 6 : 3,
      impressions: before ? 100 : 50,
      position: 4,
    },
    // Clicks 9 → 7 a day, an untracked query's included: 56 at risk, the least.
    { page: 'race-day', query: 'race day shoes', tracked: true, clicks: before ? 7 : 6, impressions: 100, position: 5 },
    { page: 'race-day', query: 'racing flats review', clicks: before ? 2 : 1, impressions: 40, position: 8 },
    // Steady, and sharing a query with the trail guide.
    { page: 'buying-guide', query: 'running shoes', tracked: true, clicks: 5, impressions: 120, position: 3 },
    { page: 'buying-guide', query: 'trail running shoes', tracked: true, clicks: 2, impressions: 60, position: 9 },
    { page: 'buying-guide', query: 'best cushioned shoes', clicks: 1, impressions: 45, position: 7 },
  ];
}

/** Puts the site's 56 days ending today and evaluates decay on today, as the daily run does after an import. */
export async function seedSearchTraffic(store: Store, siteId: number): Promise<void> {
  const today = utcDay(new Date());
  // Connected: search_traffic reads a site's days as its property's only while the site is connected.
  await store.searchConsole.put({
    site_id: siteId,
    property: 'sc-domain:traffic.example.com',
    status: 'connected',
    connected_at: `${today}T00:00:00.000Z`,
  });
  for (const day of searchDays(daysEndingOn(today, 56)[0] ?? today, 56, rowsOf))
    await store.searchDays.put(siteId, day);
  await evaluateDecay(store, siteId, today);
}

/** What the totals panel must say of a reply, per figure: the value and its change. */
export const expectedTotals = (traffic: SearchTraffic) => {
  const { totals, deltas } = traffic;
  const clicksChange = deltas.clicks_change === null ? '' : ` (${fmtChange(deltas.clicks_change, (v) => fmtShare(v))})`;
  return {
    clicks: [fmtInt(totals.clicks), fmtChange(deltas.clicks, fmtInt) + clicksChange],
    impressions: [fmtInt(totals.impressions), fmtChange(deltas.impressions, fmtInt)],
    ctr: [fmtShare(totals.ctr), fmtPoints(deltas.ctr)],
    position: [fmtNum(totals.position), fmtChange(deltas.position)],
  };
};

type Root = { locator(selector: string): Locator };
const cells = (root: Root, table: string) =>
  root
    .locator(`[data-table="${table}"] tbody tr`)
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.innerText.trim())));

/** The totals drawn (`root`: the page or the App's frame). */
export const drawnTotals = async (root: Root) =>
  Object.fromEntries(
    await Promise.all(
      (['clicks', 'impressions', 'ctr', 'position'] as const).map(async (name) => [
        name,
        [
          await root.locator(`[data-traffic-totals] [data-field="${name}"]`).innerText(),
          await root.locator(`[data-traffic-totals] [data-delta="${name}"]`).innerText(),
        ],
      ]),
    ),
  );

const figures = (f: { clicks: number; impressions: number; ctr: number | null; position: number | null }) => [
  fmtInt(f.clicks),
  fmtInt(f.impressions),
  fmtShare(f.ctr),
  fmtNum(f.position),
];
const clicksOf = (n: number) => `${fmtInt(n)} ${n === 1 ? 'click' : 'clicks'}`;

/** Each list of a reply as its table must show it, row by row, and each table as drawn. */
export const expectedLists = (traffic: SearchTraffic) => ({
  pages: traffic.pages.map((p) => [
    p.url,
    ...figures(p),
    p.queries.map((q) => `${q.query} ${clicksOf(q.clicks)}`).join('\n'),
  ]),
  queries: traffic.queries.map((q) => [
    q.query,
    q.tracked ? 'tracked' : 'not tracked',
    ...figures(q),
    q.pages.map((p) => `${p.url} ${clicksOf(p.clicks)}`).join('\n'),
  ]),
  candidates: traffic.keyword_candidates.map((c) => [c.query, ...figures(c)]),
  cannibalisation: traffic.cannibalisation.map((q) => [
    q.query,
    q.tracked ? 'tracked' : 'not tracked',
    fmtInt(q.impressions),
    q.pages.map((p) => `${p.url} ${fmtShare(p.share)}`).join('\n'),
  ]),
  queue: (traffic.refresh_queue?.entries ?? []).map((e) => [
    e.url,
    e.cause,
    fmtInt(e.clicks_before),
    fmtInt(e.clicks_now),
    fmtInt(e.clicks_at_risk),
    e.status,
  ]),
});

export const drawnLists = async (root: Root) => ({
  pages: await cells(root, 'traffic-pages'),
  queries: await cells(root, 'traffic-queries'),
  candidates: await cells(root, 'traffic-candidates'),
  cannibalisation: await cells(root, 'traffic-cannibalisation'),
  queue: await root
    .locator('[data-table="refresh-queue"] tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [
        ...[...row.querySelectorAll('td')].slice(0, 1).map((td) => td.innerText.trim()),
        row.querySelector('[data-cause]')?.getAttribute('data-cause') ?? '',
        ...[...row.querySelectorAll('td')].slice(2, 5).map((td) => td.innerText.trim()),
        row.querySelector('[data-status]')?.getAttribute('data-status') ?? '',
      ]),
    ),
});
