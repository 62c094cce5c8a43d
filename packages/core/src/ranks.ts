import type { Device, FailedCheck, PageType, RankRow, SerpItem, TrackedCadence } from '@cm/contract';
import { aiOverviewHistory } from './ai-overviews';
import { cannibalisationOf } from './cannibalisation';
import { belongsTo, resultDomain } from './domains';
import { hasVolume } from './keywords';
import { positionOf, SOV_TOP_DOMAINS } from './landscape';
import { ctrOn, PUBLISHED_CTR_CURVE, visibilityOn, type CtrCurve } from './visibility';
import { roundTo } from './rounding';

/*
 * Rank tracking's rules: when a tracked scope is due, what a check keeps of a SERP, what a month of
 * checks comes to, and the history read back: positions per day, visibility per domain (CTR × volume,
 * the curve of landscape.ts), what moved most, and a published page's own positions.
 */

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `yyyy-mm-dd` day. */
const dayNumber = (day: string): number => Math.round(Date.parse(`${day}T00:00:00.000Z`) / DAY_MS);
const dayOfNumber = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The `count` days that end with `last`, oldest first. */
export const daysEndingOn = (last: string, count: number): string[] =>
  Array.from({ length: count }, (_v, i) => dayOfNumber(dayNumber(last) - count + 1 + i));

/** Whether a scope tracked at `cadence` since `since` is checked on `day`: daily every day, weekly on the weekday it began. */
export function isDue(cadence: TrackedCadence, since: string, day: string): boolean {
  const after = dayNumber(day) - dayNumber(since);
  return after >= 0 && (cadence === 'daily' || after % 7 === 0);
}

/** Checks a keyword gets in a month of 30 days at each cadence. */
export const CHECKS_PER_MONTH: Record<TrackedCadence, number> = { daily: 30, weekly: 30 / 7 };

/** A keyword tracked by several scopes is checked as often as the most frequent of them asks. */
export const keywordCadence = (cadences: readonly TrackedCadence[]): TrackedCadence =>
  cadences.includes('daily') ? 'daily' : 'weekly';

/** What `checks` a month cost at `unitUsd` a check, in whole micro-dollars. */
export const monthlyUsd = (checks: number, unitUsd: number): number => Math.round(checks * unitUsd * 1e6) / 1e6;

export interface CheckedSerp {
  keyword: string;
  locale: string;
  device: Device;
  day: string;
  checkedAt: string;
  dataSource: string;
  depth: number;
  items: readonly SerpItem[];
  siteDomain: string | null;
}

/** The row a check stores: each domain's best position and URL, and every result of the site's own domain. */
export function rankRowOf(check: CheckedSerp): RankRow {
  const best = new Map<string, { domain: string; position: number; url: string }>();
  for (const item of [...check.items].sort((a, b) => a.position - b.position)) {
    const domain = resultDomain(item.domain);
    if (!best.has(domain)) best.set(domain, { domain, position: item.position, url: item.url });
  }
  const { siteDomain } = check;
  return {
    keyword: check.keyword,
    locale: check.locale,
    device: check.device,
    day: check.day,
    checked_at: check.checkedAt,
    data_source: check.dataSource,
    depth: check.depth,
    domains: [...best.values()],
    site_results: siteDomain
      ? check.items
          .filter((item) => belongsTo(item.domain, siteDomain))
          .map((item) => ({ position: item.position, url: item.url }))
          .sort((a, b) => a.position - b.position)
      : [],
  };
}

/** A published page's address on the site's own domain, as a rank check finds it. */
export const pageUrlOn = (siteDomain: string, type: PageType, slug: string): string =>
  `https://${siteDomain}/${type}s/${encodeURIComponent(slug)}`;

/**
 * Whether a result is the page: on the site's domain (or a subdomain), at a path that ends with the
 * page's type and slug (`/articles/<slug>` on the site's domain, `/sites/<id>/articles/<slug>` on this
 * service's), a trailing slash, query or fragment aside.
 */
export function isPageUrl(url: string, siteDomain: string, type: PageType, slug: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return belongsTo(parsed.hostname, siteDomain) && path.endsWith(`/${type}s/${encodeURIComponent(slug)}`);
}

/** A keyword of the history's scope, with its volume (which weighs its clicks). */
export interface HistoryKeyword {
  keyword: string;
  locale: string;
  volume: number | null;
}

/** A published page of the scope, and its keywords among the history's. */
export interface HistoryPage {
  page_id: number;
  title: string;
  url: string;
  type: PageType;
  slug: string;
  keywords: readonly HistoryKeyword[];
}

export interface HistoryInput {
  days: readonly string[];
  keywords: readonly HistoryKeyword[];
  /** The stored rows of a keyword over the days (`locale`, `keyword`), any order. */
  rowsOf(keyword: HistoryKeyword): readonly RankRow[];
  siteDomain: string | null;
  competitors: readonly string[];
  colors?: ReadonlyMap<string, string>;
  pages: readonly HistoryPage[];
  /** Keywords of the scope the history leaves out (over its cap). */
  overCap: readonly string[];
  /** The scope's failed checks and runs, any order (those outside `days` are left out). */
  failed: readonly FailedCheck[];
  /** The curve positions are weighed by (visibility.ts ctrCurveOf); the published one when absent. */
  ctrCurve?: CtrCurve;
}

/** Winners and losers listed, each way. */
const MOVERS = 10;
/** Failed checks listed, the newest. */
const FAILURES = 100;

/** The first and the last value of a series that are not null, and the change between them. */
function firstAndLast(series: readonly (number | null)[]): { from: number; to: number } | null {
  const known = series.filter((v): v is number => v !== null);
  const from = known[0];
  const to = known[known.length - 1];
  return from === undefined || to === undefined || known.length < 2 ? null : { from, to };
}

/** A keyword's rows over the days: the latest check of each day, should there be two, else null. */
interface KeywordDays {
  keyword: HistoryKeyword;
  byDay: (RankRow | null)[];
}

const positionIn = (row: RankRow | null, domain: string): number | null =>
  row ? positionOf(row.domains, domain) : null;

/** Each keyword's row per day (the latest check of a day, should there be two). */
function gridOf(input: HistoryInput, dayIndex: ReadonlyMap<string, number>): KeywordDays[] {
  return input.keywords.map((k) => {
    const byDay: (RankRow | null)[] = input.days.map(() => null);
    for (const row of input.rowsOf(k)) {
      const i = dayIndex.get(row.day);
      const earlier = i === undefined ? undefined : byDay[i];
      if (i !== undefined && (!earlier || earlier.checked_at < row.checked_at)) byDay[i] = row;
    }
    return { keyword: k, byDay };
  });
}

/**
 * Each domain's visibility per day: the tracked domains, and the strongest others over the window (the
 * clicks its positions earn, and as a share of the volume of the keywords checked that day).
 */
function visibilityOf(input: HistoryInput, grid: readonly KeywordDays[], tracked: readonly string[], curve: CtrCurve) {
  const { days, siteDomain, competitors } = input;
  const weighed = grid.filter(({ keyword }) => hasVolume(keyword));
  const volumeOn = days.map((_d, i) =>
    weighed.reduce((sum, { keyword, byDay }) => sum + (byDay[i] ? (keyword.volume ?? 0) : 0), 0),
  );
  const clicksOf = (domain: string) =>
    days.map((_d, i) => {
      if (volumeOn[i] === 0) return null;
      let clicks = 0;
      for (const { keyword, byDay } of weighed) {
        const position = positionIn(byDay[i] ?? null, domain);
        if (position !== null) clicks += ctrOn(curve, position) * (keyword.volume ?? 0);
      }
      return roundTo(clicks, 2);
    });
  /** Visibility and estimated clicks a day per day, over the keywords checked that day. */
  const reachOf = (domain: string) =>
    days.map((_d, i) =>
      volumeOn[i] === 0
        ? null
        : visibilityOn(
            curve,
            weighed.flatMap(({ keyword, byDay }) => {
              const row = byDay[i];
              return row ? [{ volume: keyword.volume ?? 0, position: positionIn(row, domain) }] : [];
            }),
          ),
    );
  const isTracked = (domain: string) => tracked.some((t) => belongsTo(domain, t));
  const others = new Set<string>();
  for (const { byDay } of weighed)
    for (const row of byDay) for (const d of row?.domains ?? []) if (!isTracked(d.domain)) others.add(d.domain);
  const sum = (series: readonly (number | null)[]) => series.reduce<number>((total, v) => total + (v ?? 0), 0);
  const strongest = [...others]
    .map((domain) => ({ domain, clicks: clicksOf(domain) }))
    .filter((d) => sum(d.clicks) > 0)
    .sort((a, b) => sum(b.clicks) - sum(a.clicks) || a.domain.localeCompare(b.domain))
    .slice(0, SOV_TOP_DOMAINS);
  return [...tracked.map((domain) => ({ domain, clicks: clicksOf(domain) })), ...strongest].map(
    ({ domain, clicks }) => {
      const color = input.colors?.get(domain);
      const reach = reachOf(domain);
      return {
        domain,
        is_site: domain === siteDomain,
        is_competitor: competitors.includes(domain),
        ...(color ? { color } : {}),
        clicks,
        sov: clicks.map((c, i) => (c === null || volumeOn[i] === 0 ? null : roundTo(c / (volumeOn[i] ?? 1), 4))),
        visibility_pct: reach.map((r) => r?.visibility_pct ?? null),
        estimated_clicks_per_day: reach.map((r) => r?.estimated_clicks_per_day ?? null),
      };
    },
  );
}

/** The site's position of each keyword, first day with data against the last; below the results counts as one past them. */
function keywordMovesOf(grid: readonly KeywordDays[], siteDomain: string) {
  return grid.flatMap(({ keyword, byDay }) => {
    const series = byDay.map((row) => (row ? (positionIn(row, siteDomain) ?? row.depth + 1) : null));
    const ends = firstAndLast(series);
    if (!ends || ends.from === ends.to) return [];
    const shown = (value: number, row: RankRow | undefined) => (row && value > row.depth ? null : value);
    const rows = byDay.filter((row): row is RankRow => row !== null);
    return [
      {
        keyword: keyword.keyword,
        from: shown(ends.from, rows[0]),
        to: shown(ends.to, rows[rows.length - 1]),
        change: ends.from - ends.to,
      },
    ];
  });
}

/** Each domain's clicks, first day with data against the last. */
function domainMovesOf(visibility: ReadonlyArray<{ domain: string; clicks: readonly (number | null)[] }>) {
  return visibility.flatMap(({ domain, clicks }) => {
    const ends = firstAndLast(clicks);
    return ends && ends.from !== ends.to
      ? [{ domain, from: ends.from, to: ends.to, change: roundTo(ends.to - ends.from, 2) }]
      : [];
  });
}

/** The MOVERS that moved most `sign`'s way. */
const byChange = <T extends { change: number }>(moves: T[], sign: 1 | -1) =>
  moves
    .filter((m) => Math.sign(m.change) === sign)
    .sort((a, b) => sign * (b.change - a.change))
    .slice(0, MOVERS);

/** Each published page's own positions for its keywords, per day. */
function pagePositionsOf(input: HistoryInput, grid: readonly KeywordDays[], siteDomain: string) {
  const rowsByKeyword = new Map(grid.map(({ keyword, byDay }) => [`${keyword.locale}#${keyword.keyword}`, byDay]));
  return input.pages.map((page) => ({
    page_id: page.page_id,
    title: page.title,
    url: page.url,
    keywords: page.keywords.map((k) => ({
      keyword: k.keyword,
      positions: (rowsByKeyword.get(`${k.locale}#${k.keyword}`) ?? input.days.map(() => null)).map((row) => {
        const own = row?.site_results.find((r) => isPageUrl(r.url, siteDomain, page.type, page.slug));
        return own ? own.position : null;
      }),
    })),
  }));
}

/** On how many of the days, and for how many keywords, there is data; the newest failed checks of the days. */
function coverageOf(input: HistoryInput, grid: readonly KeywordDays[], dayIndex: ReadonlyMap<string, number>) {
  const { days } = input;
  return {
    days: days.length,
    days_with_data: days.filter((_d, i) => grid.some(({ byDay }) => byDay[i] !== null)).length,
    keywords_with_data: grid.filter(({ byDay }) => byDay.some((row) => row !== null)).length,
    failed: input.failed
      .filter((f) => dayIndex.has(f.day))
      .sort((a, b) => b.day.localeCompare(a.day) || (a.keyword ?? '').localeCompare(b.keyword ?? ''))
      .slice(0, FAILURES),
  };
}

/**
 * The history of a scope's keywords over `days`: each keyword's position per day for the site and each
 * tracked competitor; each domain's visibility per day (the clicks its positions earn: Σ CTR(position)
 * × volume over the keywords checked that day, and as a share of those keywords' volume; beside them
 * visibility % and estimated clicks a day, visibility.ts, on the curve it names); the keywords
 * and domains that moved most; each published page's own positions for its keywords; the keywords the
 * site's own URLs share (cannibalisation.ts); and on how many of the days there is data.
 */
export function rankHistory(input: HistoryInput) {
  const { days, siteDomain, competitors } = input;
  const dayIndex = new Map(days.map((day, i) => [day, i]));
  const tracked = [...(siteDomain ? [siteDomain] : []), ...competitors];
  const grid = gridOf(input, dayIndex);
  const keywords = grid.map(({ keyword, byDay }) => ({
    keyword: keyword.keyword,
    locale: keyword.locale,
    positions: Object.fromEntries(tracked.map((domain) => [domain, byDay.map((row) => positionIn(row, domain))])),
  }));
  const curve = input.ctrCurve ?? PUBLISHED_CTR_CURVE;
  const visibility = visibilityOf(input, grid, tracked, curve);
  const keywordMoves = siteDomain ? keywordMovesOf(grid, siteDomain) : [];
  const domainMoves = domainMovesOf(visibility);
  return {
    days: [...days],
    ctr_curve: curve.name,
    coverage: coverageOf(input, grid, dayIndex),
    keywords,
    visibility,
    winners: byChange(keywordMoves, 1),
    losers: byChange(keywordMoves, -1),
    domains_up: byChange(domainMoves, 1),
    domains_down: byChange(domainMoves, -1),
    pages: siteDomain ? pagePositionsOf(input, grid, siteDomain) : [],
    over_cap: [...input.overCap],
    ai_overviews: aiOverviewHistory({ ...input, grid, others: SOV_TOP_DOMAINS }),
    cannibalisation: cannibalisationOf({ grid, curve }),
  };
}
