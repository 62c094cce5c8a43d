import { roundTo } from './rounding';
/*
 * The weighting of positions, written once (docs/api/research-tools.md#visibility): the CTR curve that
 * share of voice, visibility and the clicks estimate read, which curve a site's figures use, and
 * visibility as the share of the most a site could have.
 */

/** A CTR curve: the share of a keyword's searches each organic position gets (`ctr[0]`: position 1), and its name as replies say it. */
export interface CtrCurve {
  name: string;
  ctr: readonly number[];
}

/**
 * The published curve: First Page Sage's meta-analysis of Google click-through rates by organic
 * position, updated August 2024 (docs/api/decisions.md#the-ctr-curve). It reports page one only: a
 * position past 10 counts 0.
 */
export const PUBLISHED_CTR_CURVE: CtrCurve = {
  name: 'published:first-page-sage/2024',
  ctr: [0.398, 0.187, 0.102, 0.072, 0.051, 0.044, 0.03, 0.021, 0.019, 0.016],
};

/** The name of a curve of a site's own CTR by position, from Search Console. */
const SEARCH_CONSOLE_CURVE = 'search_console';

/**
 * The curve of a site's estimates: its own CTR by position (`own[0]`: position 1, from Search Console)
 * when it has one for position 1, otherwise the published curve. A position it has no figure for takes
 * the published curve's scaled to the site's own (× own[0] / published[0]: the published curve's shape
 * at the site's level), and no position earns more than the one before it: a published figure above
 * the site's own at first place would rate a lower place above first (a site fourth everywhere at 100 %).
 */
export function ctrCurveOf(own: ReadonlyArray<number | null> | null): CtrCurve {
  const first = own?.[0];
  if (!own || first === null || first === undefined || first <= 0) return PUBLISHED_CTR_CURVE;
  const published = PUBLISHED_CTR_CURVE.ctr;
  const scale = first / (published[0] ?? first);
  const length = Math.max(own.length, published.length);
  const ctr: number[] = [];
  for (let i = 0; i < length; i += 1) {
    const value = own[i] ?? roundTo((published[i] ?? 0) * scale, 4);
    ctr.push(Math.min(value, ctr[i - 1] ?? value));
  }
  return { name: SEARCH_CONSOLE_CURVE, ctr };
}

/** The share of a keyword's searches `position` gets on `curve` (0 past its end). */
export const ctrOn = (curve: CtrCurve, position: number): number => curve.ctr[position - 1] ?? 0;

/** Average days in a month: a keyword's volume is its searches a month. */
const DAYS_A_MONTH = 365 / 12;

/** A keyword as visibility weighs it: its searches a month and a domain's best position (null: not in the results). */
export interface WeighedKeyword {
  volume: number;
  position: number | null;
}

/**
 * A domain's visibility over keywords with volume: `100 × Σ volume × w(position) / Σ volume`, where
 * `w(position)` is the curve's CTR there over its CTR at position 1 (at most 1), so first on every
 * keyword is 100 %; and the clicks a day its positions earn, an estimate (`Σ volume × CTR(position)`
 * over a month's days).
 */
export function visibilityOn(curve: CtrCurve, keywords: readonly WeighedKeyword[]) {
  const top = ctrOn(curve, 1);
  let volume = 0;
  let weighted = 0;
  let clicks = 0;
  for (const k of keywords) {
    volume += k.volume;
    if (k.position === null) continue;
    const ctr = ctrOn(curve, k.position);
    weighted += k.volume * Math.min(1, ctr / top);
    clicks += k.volume * ctr;
  }
  return {
    visibility_pct: volume > 0 ? roundTo((100 * weighted) / volume, 2) : 0,
    estimated_clicks_per_day: roundTo(clicks / DAYS_A_MONTH, 2),
  };
}
