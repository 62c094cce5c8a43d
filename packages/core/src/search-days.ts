import {
  LIMITS,
  SEARCH_DEVICES,
  type PageType,
  type SearchDay,
  type SearchDayPage,
  type SearchDayPair,
  type SearchDevice,
  type SearchTotals,
} from '@cm/contract';
import { belongsTo } from './domains';
import { normalizeKeyword } from './keywords';
import { SearchSum } from './search-sum';

/*
 * A site's Search Console day from its rows (docs/api/search-console.md#the-import): totals, devices,
 * countries, pages, queries and (page, query) pairs, each list by impressions (most first) and capped
 * by LIMITS, with what the caps left out counted. Positions are impression-weighted averages. Three
 * reads give them, as Google counts best: the totals, devices and countries from rows without page and
 * query (which alone count the queries Google anonymises), the pages from rows without query, the
 * queries and pairs from (page, query) rows.
 */

/** A row's figures: clicks, impressions, the average position. */
interface RowFigures {
  clicks: number;
  impressions: number;
  position: number;
}

/** A row of the day by device and country (no page, no query: every search counted). */
export interface SearchTotalRow extends RowFigures {
  device: SearchDevice;
  country: string;
}

/** A row of the day by page and device (no query: the anonymised queries counted). */
export interface SearchPageRow extends RowFigures {
  page: string;
  device: SearchDevice;
}

/** A row of the day by page and query (the anonymised queries left out, as Google does). */
export interface SearchQueryRow extends RowFigures {
  page: string;
  query: string;
}

/** A day's rows of the three reads. */
export interface SearchDayRows {
  totals: readonly SearchTotalRow[];
  pages: readonly SearchPageRow[];
  queries: readonly SearchQueryRow[];
}

/** A site's page, as a row's URL names it. */
export interface SearchPageRef {
  type: PageType;
  id: string;
}

const addRow = (sum: SearchSum, row: RowFigures) => sum.add(row.clicks, row.impressions, row.position);

/** Sums of rows by a key, and by device under it when asked. */
class Grouped {
  readonly sums = new Map<string, SearchSum>();
  readonly devices = new Map<string, Map<SearchDevice, SearchSum>>();
  add(key: string, row: RowFigures, device?: SearchDevice) {
    const sums = this.sums.get(key) ?? new SearchSum();
    this.sums.set(key, sums);
    addRow(sums, row);
    if (device === undefined) return;
    const devices = this.devices.get(key) ?? new Map<SearchDevice, SearchSum>();
    this.devices.set(key, devices);
    const sum = devices.get(device) ?? new SearchSum();
    devices.set(device, sum);
    addRow(sum, row);
  }
  /** Keys by impressions, then clicks (most first), then key, the first `max` of them. */
  top(max: number): string[] {
    return [...this.sums]
      .sort(([ka, a], [kb, b]) => b.impressions - a.impressions || b.clicks - a.clicks || (ka < kb ? -1 : 1))
      .slice(0, max)
      .map(([key]) => key);
  }
  figures(key: string): SearchTotals {
    return (this.sums.get(key) ?? new SearchSum()).totals();
  }
  byDevice(key: string): SearchDayPage['devices'] {
    const devices = this.devices.get(key);
    return Object.fromEntries(
      SEARCH_DEVICES.flatMap((device) => {
        const sums = devices?.get(device);
        return sums ? [[device, sums.totals()]] : [];
      }),
    );
  }
}

/** The site's page a Search Console URL is, by its path on the site's domain (`/articles/<slug>`), or null. */
export function pageOfUrl(
  url: string,
  siteDomain: string,
  pageOf: (type: PageType, slug: string) => SearchPageRef | null,
): SearchPageRef | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!belongsTo(parsed.hostname, siteDomain)) return null;
  const path = /^\/(article|question)s\/([^/]+)\/?$/.exec(parsed.pathname);
  if (!path) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(path[2] ?? '');
  } catch {
    return null;
  }
  return pageOf(path[1] === 'article' ? 'article' : 'question', slug);
}

export interface SearchDayInput {
  date: string;
  state: SearchDay['data_state'];
  dataSource: string;
  importedAt: string;
  rows: SearchDayRows;
  /** The site's page a row's URL is, or null. */
  pageOf(url: string): SearchPageRef | null;
}

const PAIR = '\n';

/** A day's figures from its rows; no query is `tracked` yet (trackedDay marks them). */
export function searchDayOf(input: SearchDayInput): SearchDay {
  const totals = new SearchSum();
  const devices = new Grouped();
  const countries = new Grouped();
  const pages = new Grouped();
  const queries = new Grouped();
  const pairs = new Grouped();
  const { rows } = input;
  for (const row of rows.totals) {
    addRow(totals, row);
    devices.add(row.device, row);
    countries.add(row.country, row);
  }
  for (const row of rows.pages) pages.add(row.page, row, row.device);
  for (const row of rows.queries) {
    queries.add(row.query, row);
    pairs.add(`${row.page}${PAIR}${row.query}`, row);
  }
  const keptPages = pages.top(LIMITS.searchDayPages);
  const keptQueries = queries.top(LIMITS.searchDayQueries);
  const pageIndex = new Map(keptPages.map((url, i) => [url, i]));
  const queryIndex = new Map(keptQueries.map((query, i) => [query, i]));
  const keptPairs = pairs.top(pairs.sums.size).flatMap((key): SearchDayPair[] => {
    const [page = '', query = ''] = key.split(PAIR);
    const p = pageIndex.get(page);
    const q = queryIndex.get(query);
    if (p === undefined || q === undefined) return [];
    const { clicks, impressions, position } = pairs.figures(key);
    return [[p, q, clicks, impressions, position ?? 0]];
  });
  const storedPairs = keptPairs.slice(0, LIMITS.searchDayPairs);
  return {
    date: input.date,
    data_state: input.state,
    data_source: input.dataSource,
    imported_at: input.importedAt,
    rows: rows.totals.length + rows.pages.length + rows.queries.length,
    totals: totals.totals(),
    devices: Object.fromEntries(
      SEARCH_DEVICES.flatMap((device) => (devices.sums.has(device) ? [[device, devices.figures(device)]] : [])),
    ),
    countries: countries.top(LIMITS.searchDayCountries).map((country) => ({ country, ...countries.figures(country) })),
    pages: keptPages.map((url) => ({
      url,
      page: input.pageOf(url),
      ...pages.figures(url),
      devices: pages.byDevice(url),
    })),
    queries: keptQueries.map((query) => ({ query, tracked: false, ...queries.figures(query) })),
    pairs: storedPairs,
    left_out: {
      pages: pages.sums.size - keptPages.length,
      queries: queries.sums.size - keptQueries.length,
      pairs: pairs.sums.size - storedPairs.length,
    },
  };
}

/** The day's queries marked `tracked` when one of the site's keyword rows has them (`tracked`: normalized keywords). */
export const trackedDay = (day: SearchDay, tracked: ReadonlySet<string>): SearchDay => ({
  ...day,
  queries: day.queries.map((q) => ({ ...q, tracked: tracked.has(normalizeKeyword(q.query)) })),
});
