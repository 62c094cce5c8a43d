import { DEFAULT_LOCALE, type SearchDevice } from '@cm/contract';
import { ctrOn, PUBLISHED_CTR_CURVE, searchImportDay, type SearchDayRows, type SearchTotalRow } from '@cm/core';
import type { Meter } from '../meter';
import type { SearchConsoleContext, SearchConsoleDay, SearchConsoleProvider } from '../types';
import { charge, SANDBOX } from './charge';
import { datedPlacement } from './dated-serp';
import { sandboxIdeas, sandboxMetrics } from './keywords';
import { leverOn } from './levers';
import { SITE_SHARE } from './serp';

/*
 * The sandbox's Search Console (docs/api/search-console.md#the-sandbox): a day's rows derived from the
 * site's pages and keywords, consistent with the sandbox's rank checks. Each page's keywords rank where
 * that day's rank check places the site, per device; a few long-tail queries per page that no keyword
 * names rank lower, and searches too rare for Google to name (anonymised) where its first keyword ranks.
 * Impressions are the query's monthly searches over 30, split by device and country; clicks, impressions
 * at the published CTR curve's share for the position. The day's three reads group these rows as Google
 * does: the anonymised searches count in the totals and the pages, never as a query.
 */

/** The ledger's endpoint of a call: Search Console's query method. */
const SEARCH_ANALYTICS_QUERY = 'searchAnalytics.query';
/** Rows one call answers at most, as Search Console's rowLimit. */
const ROWS_PER_CALL = 25_000;

/** Google's searches by device, as shares (tablets rank as desktops do). */
const DEVICE_SHARES: ReadonlyArray<readonly [SearchDevice, number]> = [
  ['mobile', 0.6],
  ['desktop', 0.35],
  ['tablet', 0.05],
];
/** The countries a site's searches come from, as shares. */
const COUNTRY_SHARES: ReadonlyArray<readonly [string, number]> = [
  ['usa', 0.5],
  ['gbr', 0.2],
  ['ind', 0.12],
  ['can', 0.1],
  ['aus', 0.08],
];
/** Long-tail queries a page gets impressions for beside its keywords. */
const LONG_TAIL_PER_PAGE = 3;
/** A page's searches too rare for Google to name, as a share of its first keyword's monthly searches. */
const ANONYMISED_SHARE = 0.25;
/** Monthly searches of a query the keyword data knows nothing of (a long phrase). */
const UNKNOWN_VOLUME = 20;
/** Positions a query's page is seen at: past it, no impression. */
const DEPTH = 100;

/** The share of a query's searches that see a result at `position`: page one all, page two a fifth, further a twentieth. */
const seenShare = (position: number) => (position <= 10 ? 1 : position <= 20 ? 0.2 : 0.05);

/** A page's queries: its keywords, which it targets, then long-tail ideas of its first keyword that no page names. */
function queriesOf(
  page: SearchConsoleContext['pages'][number],
  named: ReadonlySet<string>,
  locale: string,
): Array<{ query: string; targeted: boolean }> {
  const seed = page.keywords[0];
  const longTail =
    seed === undefined
      ? []
      : sandboxIdeas([seed], locale, LONG_TAIL_PER_PAGE + page.keywords.length)
          .map((idea) => idea.keyword)
          .filter((idea) => !named.has(idea))
          .slice(0, LONG_TAIL_PER_PAGE);
  return [
    ...page.keywords.map((query) => ({ query, targeted: true })),
    ...longTail.map((query) => ({ query, targeted: false })),
  ];
}

/** A (page, query, device, country) row of the day; an anonymised one's query is the keyword it varies. */
export interface SandboxSearchRow extends SearchTotalRow {
  page: string;
  query: string;
  anonymised: boolean;
}

/** The rows of a query's page on a device at `position`, one per country with an impression; `share` of the query's searches. */
function rowsAt(
  date: string,
  page: string,
  query: string,
  device: SearchDevice,
  deviceShare: number,
  position: number,
  locale: string,
  anonymised = false,
): SandboxSearchRow[] {
  const searches = sandboxMetrics(query, locale)?.volume ?? UNKNOWN_VOLUME;
  const daily = (searches * (anonymised ? ANONYMISED_SHARE : 1)) / 30;
  const demand = leverOn(query, 'fading', date) ? 0.5 : 1;
  const clickShare = ctrOn(PUBLISHED_CTR_CURVE, position) * (leverOn(query, 'zeroclick', date) ? 0.5 : 1);
  return COUNTRY_SHARES.flatMap(([country, countryShare]) => {
    const impressions = Math.round(daily * demand * deviceShare * countryShare * seenShare(position));
    if (impressions === 0) return [];
    const clicks = Math.round(impressions * clickShare);
    return [{ page, query, device, country, clicks, impressions, position, anonymised }];
  });
}

/** The site's rows of `date`, every (page, query, device, country) with an impression: what the day's reads group. */
export function sandboxSearchRows(date: string, context: SearchConsoleContext): SandboxSearchRow[] {
  const { siteDomain, pages, locale = DEFAULT_LOCALE } = context;
  const named = new Set(pages.flatMap((page) => page.keywords));
  const queries = pages.map((page) => ({ page, queries: queriesOf(page, named, locale) }));
  const rows: SandboxSearchRow[] = [];
  for (const [device, share] of DEVICE_SHARES) {
    // The rank checks' placement of the day (a tablet's is the desktop's); long-tail queries no page targets.
    const placed = device === 'mobile' ? 'mobile' : 'desktop';
    const targeted = datedPlacement(date, siteDomain, pages, placed);
    const untargeted = datedPlacement(date, siteDomain, [], placed);
    for (const { page, queries: ofPage } of queries)
      for (const { query, targeted: isTargeted } of ofPage) {
        const position = isTargeted
          ? targeted.position(query, locale, siteDomain, SITE_SHARE, DEPTH)
          : untargeted.position(query, locale, siteDomain, 1, DEPTH);
        if (position === null) continue;
        rows.push(...rowsAt(date, page.url, query, device, share, position, locale));
        // The page's rare searches, variants of its first keyword: seen where it is.
        if (query === page.keywords[0])
          rows.push(...rowsAt(date, page.url, query, device, share, position, locale, true));
      }
  }
  return rows;
}

/** Rows summed by the dimensions `keysOf` names, the position weighed by impressions: one of Google's reads. */
function read<Keys extends Record<string, string>>(
  rows: readonly SandboxSearchRow[],
  keysOf: (row: SandboxSearchRow) => Keys,
) {
  const sums = new Map<string, { keys: Keys; clicks: number; impressions: number; weighted: number }>();
  for (const row of rows) {
    const keys = keysOf(row);
    const key = Object.values(keys).join('\n');
    const sum = sums.get(key) ?? { keys, clicks: 0, impressions: 0, weighted: 0 };
    sum.clicks += row.clicks;
    sum.impressions += row.impressions;
    sum.weighted += row.position * row.impressions;
    sums.set(key, sum);
  }
  return [...sums.values()].map(({ keys, clicks, impressions, weighted }) => ({
    ...keys,
    clicks,
    impressions,
    position: weighted / impressions,
  }));
}

/** The day's three reads of the rows: by device and country, by page and device, by page and query (the named queries only). */
const readsOf = (rows: readonly SandboxSearchRow[]): SearchDayRows => ({
  totals: read(rows, ({ device, country }) => ({ device, country })),
  pages: read(rows, ({ page, device }) => ({ page, device })),
  queries: read(
    rows.filter((r) => !r.anonymised),
    ({ page, query }) => ({ page, query }),
  ),
});

/** The sandbox's Search Console: no service account, every property's rows derived (sandboxSearchRows), free. */
export class SandboxSearchConsole implements SearchConsoleProvider {
  readonly name = SANDBOX;
  readonly serviceAccount = null;
  readonly readsKeywords = true;

  async dayRows(
    _property: string,
    date: string,
    state: 'final' | 'fresh',
    context: SearchConsoleContext,
    meter: Meter,
  ): Promise<SearchConsoleDay> {
    // As Google: no final rows of a day newer than the daily import's day (not final yet).
    const notFinal = state === 'final' && context.today !== undefined && date > searchImportDay(context.today);
    const reads = readsOf(notFinal ? [] : sandboxSearchRows(date, context));
    // As the real client asks them: the totals' read, and when it has rows the others, one call per ROWS_PER_CALL rows each.
    const callsOf = (rows: readonly unknown[]) => Math.max(1, Math.ceil(rows.length / ROWS_PER_CALL));
    const calls = reads.totals.length === 0 ? 1 : callsOf(reads.totals) + callsOf(reads.pages) + callsOf(reads.queries);
    for (let call = 0; call < calls; call++)
      await charge(
        meter,
        SEARCH_ANALYTICS_QUERY,
        0,
        () => null,
        () => 0,
      );
    return { ...reads, calls };
  }
}
