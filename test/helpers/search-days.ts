import type { PageType, SearchDay } from '@cm/contract';

/** One (page, query) row of a day as Search Console would give it (all devices and countries together). */
export interface SearchRow {
  /** The page's id on the site (an article unless `type` says); null for a URL that is no page of the site. */
  page: string | null;
  type?: PageType;
  query: string;
  tracked?: boolean;
  clicks: number;
  impressions: number;
  position: number;
}

const urlOf = (row: SearchRow) => `https://example.com/${row.type ?? 'article'}s/${row.page ?? 'listing'}`;

/** Sums rows' figures, the position weighed by impressions, as the import does. */
function figures(rows: readonly SearchRow[]) {
  const clicks = rows.reduce((n, r) => n + r.clicks, 0);
  const impressions = rows.reduce((n, r) => n + r.impressions, 0);
  const weighted = rows.reduce((n, r) => n + r.position * r.impressions, 0);
  return { clicks, impressions, position: impressions > 0 ? weighted / impressions : null };
}

const groups = <K>(rows: readonly SearchRow[], keyOf: (row: SearchRow) => K) => {
  const map = new Map<K, SearchRow[]>();
  for (const row of rows) map.set(keyOf(row), [...(map.get(keyOf(row)) ?? []), row]);
  return [...map.values()];
};

/**
 * A site's final day of Search Console figures built from its (page, query) rows, every list consistent
 * with them: the pages' and queries' figures and the totals are the rows' sums.
 */
export function searchDay(date: string, rows: readonly SearchRow[]): SearchDay {
  const byPage = groups(rows, urlOf);
  const byQuery = groups(rows, (r) => r.query);
  const pageUrls = byPage.map((group) => urlOf(group[0] as SearchRow));
  const queryTexts = byQuery.map((group) => (group[0] as SearchRow).query);
  return {
    date,
    data_state: 'final',
    data_source: 'sandbox',
    imported_at: `${date}T09:00:00.000Z`,
    rows: rows.length,
    totals: figures(rows),
    devices: { mobile: figures(rows) },
    countries: [{ country: 'usa', ...figures(rows) }],
    pages: byPage.map((group) => {
      const first = group[0] as SearchRow;
      return {
        url: urlOf(first),
        page: first.page === null ? null : { type: first.type ?? 'article', id: first.page },
        ...figures(group),
        devices: {},
      };
    }),
    queries: byQuery.map((group) => ({
      query: (group[0] as SearchRow).query,
      tracked: (group[0] as SearchRow).tracked ?? false,
      ...figures(group),
    })),
    pairs: rows.map((r) => [
      pageUrls.indexOf(urlOf(r)),
      queryTexts.indexOf(r.query),
      r.clicks,
      r.impressions,
      r.position,
    ]),
    left_out: { pages: 0, queries: 0, pairs: 0 },
  };
}

/** Each day from `from` for `count` days (YYYY-MM-DD), with the rows `rowsOf` gives it (its index from 0). */
export function searchDays(from: string, count: number, rowsOf: (i: number, date: string) => SearchRow[]): SearchDay[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  return Array.from({ length: count }, (_v, i) => {
    const date = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    return searchDay(date, rowsOf(i, date));
  });
}
