import { LIMITS, type PageType, type SearchDay } from '@cm/contract';
import { daysEndingOn } from './ranks';
import { roundTo } from './rounding';
import { SearchSum, type WindowFigures } from './search-sum';

/*
 * What Search Console's days say of a site, a page or a set of pages (docs/api/tracking-tools.md#search_traffic):
 * figures over a window of days and the window before, the queries of each page, the pages of each query,
 * the queries no keyword row tracks, and the site's own CTR by position.
 */

/** Days from `from` to `to`, both included (YYYY-MM-DD). */
export interface DayWindow {
  from: string;
  to: string;
}

/** The figures of no day: a window nothing was read for, a page absent from it. */
export const NO_FIGURES: WindowFigures = { clicks: 0, impressions: 0, ctr: null, position: null };

/** The pages figures are summed over: the whole site, or the site's pages with these ids. */
export type PageSelection = 'site' | ReadonlySet<string>;

/** The window of `days` days ending on `date`, and the `days` days before it. */
export function trafficWindows(date: string, days: number): { window: DayWindow; previous: DayWindow } {
  const all = daysEndingOn(date, 2 * days);
  const at = (i: number) => all[i] ?? date;
  return { window: { from: at(days), to: date }, previous: { from: at(0), to: at(days - 1) } };
}

/** The day `count` days after `day` (YYYY-MM-DD; before it when negative). */
export const dayAfter = (day: string, count: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + count * 86_400_000).toISOString().slice(0, 10);

const within = (date: string, window: DayWindow) => date >= window.from && date <= window.to;

/** How many of the window's days are stored among `days` (a day not imported yet is missing, not zero). */
export const daysHeld = (days: readonly SearchDay[], window: DayWindow): number =>
  days.filter((day) => within(day.date, window)).length;

/** Most clicks first, then most impressions, then by name: a stable order. */
const byClicks = <T extends { name: string; sum: SearchSum }>(a: T, b: T) =>
  b.sum.clicks - a.sum.clicks || b.sum.impressions - a.sum.impressions || a.name.localeCompare(b.name);
const byImpressions = <T extends { name: string; sum: SearchSum }>(a: T, b: T) =>
  b.sum.impressions - a.sum.impressions || b.sum.clicks - a.sum.clicks || a.name.localeCompare(b.name);

const selects = (selection: PageSelection, page: { id: string } | null) =>
  selection === 'site' || (page !== null && selection.has(page.id));

/** The figures of the selection over the window: the site's totals (what the caps left out included), or its pages'. */
export function figuresOver(days: readonly SearchDay[], window: DayWindow, selection: PageSelection): WindowFigures {
  const sum = new SearchSum();
  for (const day of days) {
    if (!within(day.date, window)) continue;
    if (selection === 'site') sum.add(day.totals.clicks, day.totals.impressions, day.totals.position);
    else
      for (const page of day.pages)
        if (selects(selection, page.page)) sum.add(page.clicks, page.impressions, page.position);
  }
  return sum.figures();
}

/** A page of the site over a window: its URL, its page (type and id) as its last day names it, and its figures. */
export interface PageFigures extends WindowFigures {
  url: string;
  page: { type: PageType; id: string } | null;
}

/** Each of the site's pages (by its id) over the window, from the days' pages. */
export function pagesOver(days: readonly SearchDay[], window: DayWindow): Map<string, PageFigures> {
  const pages = new Map<string, { url: string; page: { type: PageType; id: string }; sum: SearchSum }>();
  for (const day of days) {
    if (!within(day.date, window)) continue;
    for (const row of day.pages) {
      if (row.page === null) continue;
      const entry = pages.get(row.page.id) ?? { url: row.url, page: row.page, sum: new SearchSum() };
      entry.url = row.url;
      entry.sum.add(row.clicks, row.impressions, row.position);
      pages.set(row.page.id, entry);
    }
  }
  return new Map([...pages].map(([id, { url, page, sum }]) => [id, { url, page, ...sum.figures() }]));
}

/** The difference of the window from the one before: CTR and position as differences, clicks also as a share. */
export function deltaOf(now: WindowFigures, before: WindowFigures) {
  const difference = (a: number | null, b: number | null, digits: number) =>
    a === null || b === null ? null : roundTo(a - b, digits);
  return {
    clicks: now.clicks - before.clicks,
    clicks_change: before.clicks > 0 ? roundTo((now.clicks - before.clicks) / before.clicks, 4) : null,
    impressions: now.impressions - before.impressions,
    ctr: difference(now.ctr, before.ctr, 4),
    /** Positive: a worse (larger) average position. */
    position: difference(now.position, before.position, 2),
  };
}

interface Limits {
  pages: number;
  queries: number;
  candidates: number;
}

interface PageEntry {
  name: string;
  page: { type: PageType; id: string } | null;
  sum: SearchSum;
  queries: Map<string, SearchSum>;
}

interface QueryEntry {
  name: string;
  tracked: boolean;
  sum: SearchSum;
  /** The site's pages shown for the query, by pageKey, each named by its URL. */
  pages: Map<string, { name: string; sum: SearchSum }>;
}

type DayPage = SearchDay['pages'][number];

/** One page of the site however its URL is spelt (`/x`, `/x/`, `/x?utm=`): its id; a URL no page matches, itself. */
const pageKey = (row: DayPage) => (row.page ? `${row.page.type}#${row.page.id}` : row.url);

const entryOf = <T>(map: Map<string, T>, key: string, make: () => T): T => {
  const found = map.get(key);
  if (found) return found;
  const made = make();
  map.set(key, made);
  return made;
};

/** The top `limit` of a map of sums, most clicks first, each named by its key. */
const topOf = (sums: Map<string, SearchSum>, limit: number) =>
  [...sums]
    .map(([name, sum]) => ({ name, sum }))
    .sort(byClicks)
    .slice(0, limit);

/**
 * The queries two or more of the site's pages share: each page holding at least
 * LIMITS.trafficCannibalisationShare of the query's impressions over the window (the site's pages'
 * impressions for it, from the pairs), with those pages and their shares, largest first; tracked queries
 * first, then most impressions, at most LIMITS.trafficCannibalisationMax.
 */
function cannibalisationOf(queries: readonly QueryEntry[]) {
  return queries
    .flatMap((q) => {
      const shown = [...q.pages.values()];
      const impressions = shown.reduce((n, p) => n + p.sum.impressions, 0);
      const sharing = shown
        .map((p) => ({ url: p.name, impressions: p.sum.impressions, share: p.sum.impressions / impressions }))
        .filter((p) => p.share >= LIMITS.trafficCannibalisationShare)
        .sort((a, b) => b.share - a.share || a.url.localeCompare(b.url));
      return sharing.length >= 2 ? [{ name: q.name, tracked: q.tracked, impressions, sharing }] : [];
    })
    .sort(
      (a, b) => Number(b.tracked) - Number(a.tracked) || b.impressions - a.impressions || a.name.localeCompare(b.name),
    )
    .slice(0, LIMITS.trafficCannibalisationMax)
    .map((q) => ({
      query: q.name,
      tracked: q.tracked,
      impressions: q.impressions,
      pages: q.sharing.map((p) => ({ url: p.url, impressions: p.impressions, share: roundTo(p.share, 4) })),
    }));
}

/**
 * The selection's queries and pages over the window: each page's figures from the days' pages (the
 * figures page scope and decay read, every row of one page counted once), its top queries from the
 * (page, query) pairs; each query with the site's pages that showed for it (another page sharing a query
 * is there too), and the queries with impressions that no keyword row tracks, most impressions first
 * (as the last day of the window says of each query).
 */
export function queriesAndPages(
  days: readonly SearchDay[],
  window: DayWindow,
  selection: PageSelection,
  limits: Limits,
) {
  const pages = new Map<string, PageEntry>();
  const queries = new Map<string, QueryEntry>();
  const pageEntry = (row: DayPage) => {
    const entry = entryOf(pages, pageKey(row), () => ({
      name: row.url,
      page: row.page,
      sum: new SearchSum(),
      queries: new Map<string, SearchSum>(),
    }));
    entry.name = row.url;
    return entry;
  };
  for (const day of days) {
    if (!within(day.date, window)) continue;
    for (const row of day.pages)
      if (selects(selection, row.page)) pageEntry(row).sum.add(row.clicks, row.impressions, row.position);
    for (const [pageAt, queryAt, clicks, impressions, position] of day.pairs) {
      const page = day.pages[pageAt];
      const query = day.queries[queryAt];
      if (!page || !query) continue;
      const queryEntry = entryOf(queries, query.query, () => ({
        name: query.query,
        tracked: query.tracked,
        sum: new SearchSum(),
        pages: new Map<string, { name: string; sum: SearchSum }>(),
      }));
      queryEntry.tracked = query.tracked;
      const shown = entryOf(queryEntry.pages, pageKey(page), () => ({ name: page.url, sum: new SearchSum() }));
      shown.name = page.url;
      shown.sum.add(clicks, impressions, position);
      if (!selects(selection, page.page)) continue;
      queryEntry.sum.add(clicks, impressions, position);
      entryOf(pageEntry(page).queries, query.query, () => new SearchSum()).add(clicks, impressions, position);
    }
  }
  const selected = [...queries.values()].filter((q) => q.sum.impressions > 0 || q.sum.clicks > 0);
  return {
    pages: [...pages.values()]
      .sort(byClicks)
      .slice(0, limits.pages)
      .map((p) => ({
        url: p.name,
        page: p.page,
        ...p.sum.figures(),
        queries: topOf(p.queries, limits.queries).map((q) => ({ query: q.name, ...q.sum.figures() })),
      })),
    queries: selected
      .sort(byClicks)
      .slice(0, limits.queries)
      .map((q) => ({
        query: q.name,
        tracked: q.tracked,
        ...q.sum.figures(),
        pages: [...q.pages.values()]
          .sort(byClicks)
          .slice(0, limits.pages)
          .map((p) => ({ url: p.name, ...p.sum.figures() })),
      })),
    cannibalisation: cannibalisationOf(selected),
    candidates: selected
      .filter((q) => !q.tracked && q.sum.impressions > 0)
      .sort(byImpressions)
      .slice(0, limits.candidates)
      .map((q) => ({ query: q.name, ...q.sum.figures() })),
  };
}

/** Positions the own curve covers: page one. */
const CURVE_POSITIONS = 10;

/** A day's clicks and impressions of its (page, query) pairs at each position 1..10 (a pair at its rounded position). */
export interface PositionCounts {
  clicks: number[];
  impressions: number[];
}

/** The day's PositionCounts: what the site's own CTR curve needs of it, stored beside the day so the curve reads no more. */
export function positionCountsOf(day: SearchDay): PositionCounts {
  const clicks = new Array<number>(CURVE_POSITIONS).fill(0);
  const impressions = new Array<number>(CURVE_POSITIONS).fill(0);
  for (const [, , pairClicks, pairImpressions, position] of day.pairs) {
    const at = Math.round(position) - 1;
    if (at < 0 || at >= CURVE_POSITIONS) continue;
    clicks[at] = (clicks[at] ?? 0) + pairClicks;
    impressions[at] = (impressions[at] ?? 0) + pairImpressions;
  }
  return { clicks, impressions };
}

/**
 * The site's own CTR at each position 1..10 over the days' counts; a position with fewer than
 * LIMITS.ownCtrImpressionsMin impressions has no figure (null), and takes the published curve's in
 * ctrCurveOf (visibility.ts).
 */
export function ownCtrByPosition(days: readonly PositionCounts[]): Array<number | null> {
  const sumAt = (i: number, of: (day: PositionCounts) => number[]) =>
    days.reduce((sum, day) => sum + (of(day)[i] ?? 0), 0);
  return Array.from({ length: CURVE_POSITIONS }, (_v, i) => {
    const shown = sumAt(i, (day) => day.impressions);
    return shown >= LIMITS.ownCtrImpressionsMin ? roundTo(sumAt(i, (day) => day.clicks) / shown, 4) : null;
  });
}
