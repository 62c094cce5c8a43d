import { LIMITS, type DecayCause, type RefreshEntry, type RefreshOutcome, type SearchDay } from '@cm/contract';
import { daysHeld, NO_FIGURES, pagesOver, trafficWindows, type DayWindow, type PageFigures } from './search-traffic';
import type { WindowFigures } from './search-sum';

/*
 * Decay (docs/api/decisions.md#decay): which pages lost their clicks, the likely cause from the data, and
 * whether a republished page recovered.
 */

/** A position worse by this much (or more) is lost; a smaller move either way is steady. */
const POSITION_LOST = 1;

/** What the figures alone say of a decayed page: its cause when they show one, else null (the evidence decides). */
export type FiguresCause = 'positions_lost' | 'ctr_fell' | 'demand_fell' | null;

const fell = (now: number, before: number) => now <= before * (1 - LIMITS.decayDropShare);

/**
 * Whether a page decayed from `before` (the 28 days before) to `now` (the last 28 days): its clicks fell
 * by at least LIMITS.decayDropShare from at least LIMITS.decayClicksMin. If so, its clicks at risk (the
 * clicks it lost) and the cause its figures show: positions lost (average position worse by ≥ 1), else
 * at a steady position CTR fell (by the same share; an AI Overview may be why) or demand fell
 * (impressions down by the same share).
 */
export function decayOf(
  before: WindowFigures,
  now: WindowFigures,
): { clicks_at_risk: number; figures_cause: FiguresCause } | null {
  if (before.clicks < LIMITS.decayClicksMin || !fell(now.clicks, before.clicks)) return null;
  const clicks_at_risk = before.clicks - now.clicks;
  if (now.position === null || before.position === null) return { clicks_at_risk, figures_cause: null };
  const moved = now.position - before.position;
  if (moved >= POSITION_LOST) return { clicks_at_risk, figures_cause: 'positions_lost' };
  if (moved <= -POSITION_LOST) return { clicks_at_risk, figures_cause: null };
  if (now.ctr !== null && before.ctr !== null && fell(now.ctr, before.ctr))
    return { clicks_at_risk, figures_cause: 'ctr_fell' };
  if (fell(now.impressions, before.impressions)) return { clicks_at_risk, figures_cause: 'demand_fell' };
  return { clicks_at_risk, figures_cause: null };
}

/**
 * A window's pages with their clicks and impressions scaled to LIMITS.decayWindowDays by the days it holds
 * (CTR and position are ratios, kept); null when it holds fewer than LIMITS.decayDaysMin of them, since a
 * day not imported yet is not a day without clicks.
 */
function pagesScaled(days: readonly SearchDay[], window: DayWindow): Map<string, PageFigures> | null {
  const held = daysHeld(days, window);
  if (held < LIMITS.decayDaysMin) return null;
  const scale = (n: number) => Math.round((n * LIMITS.decayWindowDays) / held);
  return new Map(
    [...pagesOver(days, window)].map(([id, page]) => [
      id,
      { ...page, clicks: scale(page.clicks), impressions: scale(page.impressions) },
    ]),
  );
}

/**
 * The site's decayed pages on `date` from its stored days (the last 56 or fewer): each page of the 28 days
 * before whose clicks fell over the last 28 (decayOf), both windows judged on the days they hold
 * (pagesScaled); null, nothing judged, when either holds too few.
 */
export function decayedPages(days: readonly SearchDay[], date: string) {
  const { window, previous } = trafficWindows(date, LIMITS.decayWindowDays);
  const before = pagesScaled(days, previous);
  const current = pagesScaled(days, window);
  if (!before || !current) return null;
  return [...before].flatMap(([id, figures]) => {
    const decay = decayOf(figures, current.get(id) ?? NO_FIGURES);
    const page = figures.page;
    return decay && page
      ? [{ page, url: current.get(id)?.url ?? figures.url, clicks_before: figures.clicks, decay }]
      : [];
  });
}

/**
 * A decayed page's queue entry on `date`. A page still queued unrefreshed keeps the day it was first
 * flagged and its clicks before the drop: its window, rebuilt daily, slides into the decayed days, and
 * its recovery is measured against what it had. Its clicks at risk are then counted from those.
 */
export function flaggedEntry(
  queued: RefreshEntry | undefined,
  flag: Pick<RefreshEntry, 'page' | 'url' | 'cause' | 'flagged_on' | 'clicks_before' | 'clicks_now'>,
): RefreshEntry {
  const kept = queued && queued.refreshed_at === null && queued.measured === null ? queued : flag;
  return {
    ...flag,
    flagged_on: kept.flagged_on,
    clicks_before: kept.clicks_before,
    clicks_at_risk: Math.max(0, kept.clicks_before - flag.clicks_now),
    refreshed_at: null,
    measured: null,
  };
}

/**
 * The cause of a decayed page, in DECAY_CAUSES' order (contract/refresh-queue.ts): CTR that fell where an AI Overview appeared on the
 * page's tracked keywords is `ai_overview`; a page its figures leave unexplained is `page_changed` when
 * it or a page it links to changed within the window, else `unknown`.
 */
export function decayCause(cause: FiguresCause, evidence: { aiOverview: boolean; changed: boolean }): DecayCause {
  if (cause === 'ctr_fell') return evidence.aiOverview ? 'ai_overview' : 'ctr_fell';
  if (cause !== null) return cause;
  return evidence.changed ? 'page_changed' : 'unknown';
}

/**
 * A republished page's measure: recovered when its clicks over the 28 days after the republish reach
 * LIMITS.decayRecoveredShare of its clicks over the 28 days before the drop (what it had, not the decayed
 * window: a page that stays down is not recovered).
 */
export const recoveryOf = (clicksBefore: number, clicksAfter: number): RefreshOutcome =>
  clicksAfter >= clicksBefore * LIMITS.decayRecoveredShare ? 'recovered' : 'not_recovered';
