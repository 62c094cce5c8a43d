import type { Locator } from 'playwright-core';
import type { RankHistory } from '../../packages/dashboard/app/types';

/*
 * What the dashboard and the keyword landscape App must draw of a rank history's visibility and AI
 * Overviews, read from the history itself, and what they drew, read from the page: the browser tests
 * hold one against the other.
 */

/** The site's series of the history. */
export function siteOf(history: RankHistory) {
  const site = history.visibility.find((v) => v.is_site);
  if (!site) throw new Error('the history has no line of the site');
  return site;
}

/** Per keyword, each day's AI Overview as the history says it: cited (the site's URL), shown, absent, unknown. */
export function overviewStates(history: RankHistory): Record<string, string[]> {
  const site = siteOf(history).domain;
  return Object.fromEntries(
    history.ai_overviews.keywords.map((k) => [
      k.keyword,
      k.shown.map((shown, i) =>
        shown === null ? 'unknown' : !shown ? 'absent' : k.cited[site]?.[i] ? 'cited' : 'shown',
      ),
    ]),
  );
}

/** Per keyword, the day markers drawn in the AI Overviews table (`root`: the page or the App's frame). */
export const drawnOverviewStates = async (root: { locator(selector: string): Locator }) =>
  Object.fromEntries(
    await root
      .locator('[data-table="ai-overviews"] .aio-days')
      .evaluateAll((strips) =>
        strips.map((strip) => [
          strip.getAttribute('data-keyword'),
          [...strip.children].map((mark) => mark.getAttribute('data-aio')),
        ]),
      ),
  ) as Record<string, string[]>;

/** The per-day visibility table's rows, newest first: the day, then each cell's text. */
export const drawnVisibilityDays = (root: { locator(selector: string): Locator }) =>
  root
    .locator('[data-table="visibility-days"] tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent?.trim() ?? '')));
