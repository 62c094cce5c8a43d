import { DEVICES, LIMITS, type RefreshEntry, type SearchDay } from '@cm/contract';
import {
  dayAfter,
  decayCause,
  decayedPages,
  figuresOver,
  flaggedEntry,
  recoveryOf,
  trafficWindows,
  type DayWindow,
} from '@cm/core';
import { mapLimit, type QueuedEntry, type Store } from '@cm/store';
import { pageKeywords } from './context';

/*
 * Decay, evaluated daily after a site's import (docs/api/search-console.md#traffic-and-decay): each page
 * whose clicks over the 28 days ending on the imported day fell against the 28 days before is put in the
 * refresh queue with its likely cause and clicks at risk; a republished page is measured 28 days after.
 */

type PageRef = RefreshEntry['page'];

/** A page's keywords whose rank history is read for an AI Overview (its primary keyword first). */
const OVERVIEW_KEYWORDS = 5;
/** Pages whose evidence is read at once. */
const PAGES_AT_ONCE = 4;

/**
 * Whether an AI Overview appeared on one of the page's keywords: shown within the window and never within
 * the window before it (an overview there all along did not cause the fall). Its cm_pages row by its
 * published id (one indexed Query), then its first OVERVIEW_KEYWORDS keywords' rank rows of both windows
 * on each device (one Query each).
 */
async function aiOverviewAppeared(
  store: Store,
  siteId: number,
  locale: string,
  page: PageRef,
  windows: { window: DayWindow; previous: DayWindow },
) {
  const rows = await store.rows.byField(siteId, 'cm_pages', 'published_id', page.id);
  const keywords = [...new Set(rows.flatMap(pageKeywords))].slice(0, OVERVIEW_KEYWORDS);
  const checks = await mapLimit(
    keywords.flatMap((keyword) => DEVICES.map((device) => ({ keyword, device }))),
    PAGES_AT_ONCE,
    async ({ keyword, device }) => ({
      keyword,
      rows: (await store.ranks.latest(siteId, locale, keyword, 2 * LIMITS.decayWindowDays, device)).rows,
    }),
  );
  const shownIn = (window: DayWindow) =>
    new Set(
      checks.flatMap(({ keyword, rows: ranks }) =>
        ranks.some((row) => row.day >= window.from && row.day <= window.to && row.ai_overview?.shown === true)
          ? [keyword]
          : [],
      ),
    );
  const before = shownIn(windows.previous);
  return [...shownIn(windows.window)].some((keyword) => !before.has(keyword));
}

/**
 * Whether the page changed within the window: its newest revision replaced then (one Query of one), or a
 * page it links to was taken down then (its link items, one Query).
 */
async function pageChanged(store: Store, siteId: number, page: PageRef, window: DayWindow, asOf: string) {
  const [revisions, links] = await Promise.all([
    store.revisions.list(siteId, page, { limit: 1, now: asOf }),
    store.links.linksOf(siteId, page),
  ]);
  const inWindow = (at: string | null) => at !== null && at.slice(0, 10) >= window.from && at.slice(0, 10) <= window.to;
  return (
    revisions.items.some((r) => inWindow(r.replaced_at)) ||
    [...links.values()].some((l) => inWindow(l.suppressed_since))
  );
}

/** A measured entry keeps its outcome 28 days; then its page is judged afresh. Being measured, it is not re-flagged. */
const judgedAfresh = (entry: RefreshEntry | undefined, date: string) =>
  !entry ||
  (entry.refreshed_at === null && entry.measured === null) ||
  (entry.measured !== null && dayAfter(entry.measured.measured_on, LIMITS.decayWindowDays) <= date);

/**
 * Evaluates the site's decay on `date` (its newest imported day): reads its last 56 days (one Query) and
 * its queue (one Query); flags each decayed page (decayedPages: each window judged on the days it holds;
 * its evidence read only where its figures leave the cause open), drops each queued unrefreshed page
 * that no longer decays (it recovered without a refresh), and measures each republished page whose 28 days after are due. Idempotent: a repeat of
 * the day writes the same entries.
 */
export async function evaluateDecay(store: Store, siteId: number, date: string): Promise<void> {
  const { window, previous } = trafficWindows(date, LIMITS.decayWindowDays);
  const [days, queue, site] = await Promise.all([
    store.searchDays.range(siteId, previous.from, date),
    store.refreshQueue.all(siteId),
    store.sites.get(siteId),
  ]);
  if (!site) return;
  await store.refreshQueue.dropOrphans(siteId, queue.orphans);
  const queued = new Map(queue.entries.map((q) => [`${q.entry.page.type}#${q.entry.page.id}`, q]));
  const decayed = decayedPages(days, date);
  // A page queued unrefreshed that no longer decays recovered without a refresh: it leaves the queue.
  const decayedIds = new Set(decayed?.map((d) => `${d.page.type}#${d.page.id}`));
  const recovered = decayed
    ? queue.entries.filter(
        ({ entry }) =>
          entry.refreshed_at === null &&
          entry.measured === null &&
          !decayedIds.has(`${entry.page.type}#${entry.page.id}`),
      )
    : [];
  for (const { sk, entry } of recovered) await store.refreshQueue.dropRecovered(siteId, entry.page, sk);
  const flagged = (decayed ?? []).flatMap((decayed) => {
    const queuedEntry = queued.get(`${decayed.page.type}#${decayed.page.id}`)?.entry;
    return judgedAfresh(queuedEntry, date) ? [{ ...decayed, queuedEntry }] : [];
  });
  await mapLimit(flagged, PAGES_AT_ONCE, async ({ page, url, clicks_before, decay, queuedEntry }) => {
    const cause = decayCause(decay.figures_cause, {
      aiOverview:
        decay.figures_cause === 'ctr_fell' &&
        (await aiOverviewAppeared(store, siteId, site.locale, page, { window, previous })),
      changed:
        decay.figures_cause === null && (await pageChanged(store, siteId, page, window, `${date}T00:00:00.000Z`)),
    });
    const clicks_now = clicks_before - decay.clicks_at_risk;
    await store.refreshQueue.flag(
      siteId,
      flaggedEntry(queuedEntry, { page, url, cause, flagged_on: date, clicks_before, clicks_now }),
    );
  });
  await measureDue(store, siteId, date, days, queue.entries);
}

/**
 * Measures each republished entry whose 28 days after the republish end by `date`: its clicks over them
 * against its clicks before the drop (from the days read; a measure later than them takes the last 28).
 */
async function measureDue(
  store: Store,
  siteId: number,
  date: string,
  days: readonly SearchDay[],
  entries: readonly QueuedEntry[],
) {
  const due = entries.flatMap(({ sk, entry }) => {
    if (entry.refreshed_at === null || entry.measured !== null) return [];
    const refreshed = entry.refreshed_at.slice(0, 10);
    const to = dayAfter(refreshed, LIMITS.decayWindowDays);
    return to <= date ? [{ sk, entry, after: { from: dayAfter(refreshed, 1), to } }] : [];
  });
  const earliest = days[0]?.date ?? date;
  for (const { sk, entry, after } of due) {
    const window = after.from >= earliest ? after : trafficWindows(date, LIMITS.decayWindowDays).window;
    // Days an import has not stored yet are no clicks lost: the measure waits for the window's last day.
    if (!days.some((day) => day.date === window.to)) continue;
    const clicksAfter = figuresOver(days, window, new Set([entry.page.id])).clicks;
    await store.refreshQueue.measure(siteId, sk, {
      outcome: recoveryOf(entry.clicks_before, clicksAfter),
      clicks_after: clicksAfter,
      measured_on: date,
    });
  }
}
