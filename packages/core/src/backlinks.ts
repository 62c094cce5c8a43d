import { Bug } from './bug';
import type { HealthFlag } from '@cm/contract';
import { monthOf, monthStart } from './time';

/* Backlink interpretation (docs/api.md#backlink-health-flags): pure rules over stored profiles. */

/** Every threshold of the health flags, in one place. */
export const HEALTH_THRESHOLDS = {
  /** Backlinks per referring domain below this: few links from each linking site. */
  backlinksPerReferringDomain: 3,
  /** Spam score (0–100) below this is clean. */
  spamClean: 15,
  /** Share of dofollow backlinks below this. */
  dofollowShare: 0.5,
  /** One non-brand anchor above this share of backlinks. */
  anchorShare: 0.3,
  /** Months of new referring domains the velocity averages. */
  velocityMonths: 3,
} as const;

/** What the flags read of a profile (a subset of the providers' BacklinkProfile). */
export interface HealthInput {
  domain: string;
  summary: {
    backlinks: number;
    referring_domains: number;
    spam_score: number;
    broken_links: number;
    dofollow_share: number;
  };
  anchors: ReadonlyArray<{ anchor: string; share: number }>;
  trend: ReadonlyArray<{ month: string; new_referring_domains: number }>;
}

/** Short country-code second levels (`co.uk`, `com.au`), so the brand of `shop.co.uk` is `shop`. */
const SECOND_LEVELS = new Set(['co', 'com', 'net', 'org', 'gov', 'ac', 'edu']);

/** The brand of a domain: the label before its public suffix, e.g. `example` of `blog.example.co.uk`. */
export function brandOf(domain: string): string {
  const name = domain.toLowerCase();
  const labels = name.split('.');
  const suffix = labels.length >= 3 && SECOND_LEVELS.has(labels.at(-2) ?? '') ? 2 : 1;
  // Only a name of one label has no label before its suffix: it is its own brand.
  return labels[labels.length - suffix - 1] ?? name;
}

/** A brand anchor names the site (its brand or its domain, bare or as a URL); every other anchor is not. */
export const isBrandAnchor = (anchor: string, domain: string): boolean => {
  const text = anchor.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return (
    text.length > 0 &&
    (text.includes(brandOf(domain).replace(/[^a-z0-9]+/g, '')) || text.includes(domain.replace(/[^a-z0-9]+/g, '')))
  );
};

/** New referring domains per month over the last months of the trend. */
export function velocity(trend: HealthInput['trend']): number | null {
  const recent = trend.slice(-HEALTH_THRESHOLDS.velocityMonths);
  return recent.length === 0 ? null : recent.reduce((sum, p) => sum + p.new_referring_domains, 0) / recent.length;
}

export function median(values: readonly number[]): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid];
  if (upper === undefined) return null; // no values
  if (sorted.length % 2) return upper;
  const lower = sorted[mid - 1];
  if (lower === undefined) throw new Bug('an even number of values above zero has two middle values');
  return (lower + upper) / 2;
}

/** Backlinks per referring domain, two decimals; null without referring domains. */
export const linksPerDomain = (summary: { backlinks: number; referring_domains: number }): number | null =>
  summary.referring_domains > 0 ? Math.round((summary.backlinks / summary.referring_domains) * 100) / 100 : null;

/**
 * The health flags of a profile; velocity is judged against the competitors' profiles (their median),
 * and not at all without competitors.
 */
export function healthFlags(profile: HealthInput, competitors: readonly HealthInput[]): HealthFlag[] {
  const t = HEALTH_THRESHOLDS;
  const { summary } = profile;
  const flags: HealthFlag[] = [];
  // The exact ratio: 2.999 rounds to 3.00 for display but is below 3.
  if (summary.referring_domains > 0 && summary.backlinks / summary.referring_domains < t.backlinksPerReferringDomain)
    flags.push('ratio_below_3:1');
  flags.push(summary.spam_score < t.spamClean ? 'spam_clean' : 'spam_elevated');
  const own = velocity(profile.trend);
  const theirs = median(competitors.map((c) => velocity(c.trend)).filter((v): v is number => v !== null));
  if (own !== null && theirs !== null && own < theirs) flags.push('velocity_below_competitors');
  if (summary.backlinks > 0 && summary.dofollow_share < t.dofollowShare) flags.push('dofollow_below_50pct');
  if (summary.broken_links > 0) flags.push('broken_links_present');
  if (profile.anchors.some((a) => a.share > t.anchorShare && !isBrandAnchor(a.anchor, profile.domain)))
    flags.push('anchor_overoptimized');
  return flags;
}

/** The trend's points of the last `months` months, this month included. */
export function trendWithin<P extends { month: string }>(trend: readonly P[], months: number, now: Date): P[] {
  const first = monthOf(monthStart(now, months - 1));
  return trend.filter((p) => p.month >= first);
}

export interface GapEntry {
  domain: string;
  rank: number;
  links_to: readonly string[];
}

/**
 * The link gap against the competitors tracked now: what links to none of them is dropped, and
 * outreach order is the number of competitors linked, then rank.
 */
export function rankGap(
  gap: readonly GapEntry[],
  competitors: readonly string[],
): Array<GapEntry & { links_to: string[] }> {
  const tracked = new Set(competitors);
  return gap
    .map((g) => ({ ...g, links_to: g.links_to.filter((d) => tracked.has(d)) }))
    .filter((g) => g.links_to.length > 0)
    .sort((a, b) => b.links_to.length - a.links_to.length || b.rank - a.rank || a.domain.localeCompare(b.domain));
}

/**
 * When monitoring takes a domain's costly detail (anchors, top linking pages, referring domains, and the
 * site's link gap) again: never sooner than `minDays` after the last, and then only when the daily
 * numbers moved past one of these since it was taken (docs/api/decisions.md#backlink-monitoring).
 */
export const DETAIL_REFRESH = {
  minDays: 7,
  /** Referring domains or backlinks up or down by this share of what they were (at least by one). */
  share: 0.1,
  /** The rank up or down by this many points of the 0–1000 scale. */
  rankPoints: 30,
} as const;

/** The numbers the detail rule compares: a summary's. */
export interface DetailBasis {
  backlinks: number;
  referring_domains: number;
  rank: number;
}

const movedPast = (now: number, then: number) => Math.abs(now - then) >= Math.max(1, DETAIL_REFRESH.share * then);

/** Whether a domain's detail is due: it has none, or it is `minDays` old and the numbers moved past the threshold since. */
export function detailDue(taken: { at: string; basis: DetailBasis } | null, now: DetailBasis, today: Date): boolean {
  if (!taken) return true;
  if (today.getTime() - Date.parse(taken.at) < DETAIL_REFRESH.minDays * 86_400_000) return false;
  const { basis } = taken;
  return (
    movedPast(now.referring_domains, basis.referring_domains) ||
    movedPast(now.backlinks, basis.backlinks) ||
    Math.abs(now.rank - basis.rank) >= DETAIL_REFRESH.rankPoints
  );
}

/** A monthly trend point. */
interface TrendPoint {
  month: string;
  backlinks: number;
  referring_domains: number;
  new_referring_domains: number;
  rank: number;
}

/**
 * The trend extended by a day's numbers: the day's month's point becomes them (its new referring domains
 * are the month's so far), earlier months stay as they were, and the oldest beyond `months` drop off.
 * Taking the same day again gives the same trend.
 */
export function extendTrend(
  trend: readonly TrendPoint[],
  day: string,
  numbers: { summary: DetailBasis; new_referring_domains: number },
  months: number,
): TrendPoint[] {
  const month = day.slice(0, 7);
  const point: TrendPoint = {
    month,
    backlinks: numbers.summary.backlinks,
    referring_domains: numbers.summary.referring_domains,
    new_referring_domains: numbers.new_referring_domains,
    rank: numbers.summary.rank,
  };
  return [...trend.filter((p) => p.month < month), point].slice(-months);
}
