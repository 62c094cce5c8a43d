import { SharedRankSerp, type Device, type RankCollectMessage } from '@cm/contract';
import { rankRowOf, utcDay } from '@cm/core';
import type { Meter, SerpTaskQueue } from '@cm/providers';
import { serpIdentity, sharedId, type Shared, type SharedDatum, type Store } from '@cm/store';

/*
 * A rank check's SERP, shared by every site that checks the keyword that day: one provider task per
 * keyword, locale, device, depth and day, its public answer kept in the shared cache, and each site's
 * rows made from it (its domain, pages and competitors placed as it sees them).
 */

/** A keyword's check of a day on a device. */
export interface RankCheck {
  locale: string;
  keyword: string;
  device: Device;
}

/** A check's SERP in the shared cache: the same item for every site checking it on that device at that depth that day. */
export const rankSerpDatum = (check: RankCheck, depth: number, day: string): SharedDatum => ({
  kind: 'rank-serp',
  key: serpIdentity({ locale: check.locale, device: check.device, depth, keyword: check.keyword }),
  day,
});

/**
 * The SERPs of these checks the shared cache has from the configured provider (another provider's,
 * after a deployment changed providers, are not this one's): one batched read, by the check.
 */
export async function sharedRankSerps<C extends RankCheck>(
  deps: { store: Store; serpQueue: SerpTaskQueue },
  checks: readonly C[],
  depth: number,
  day: string,
): Promise<Array<{ check: C; serp: Shared<SharedRankSerp> | undefined }>> {
  const found = await deps.store.shared.getMany(
    checks.map((check) => rankSerpDatum(check, depth, day)),
    SharedRankSerp,
  );
  return checks.map((check) => {
    const serp = found.get(sharedId(rankSerpDatum(check, depth, day)));
    return { check, serp: serp?.data_source === deps.serpQueue.name ? serp : undefined };
  });
}

/** What a site's rows are made of: the site as it was when its checks were posted. */
export type SiteView = Pick<RankCollectMessage, 'site_id' | 'day' | 'depth' | 'site_domain' | 'competitors' | 'pages'>;

/** The published pages of these keywords, each naming only them: all the sandbox places for them. */
export const pagesOfKeywords = (
  pages: ReadonlyArray<{ url: string; keywords: readonly string[] }>,
  keywords: readonly string[],
): SiteView['pages'] =>
  pages.flatMap((page) => {
    const named = page.keywords.filter((k) => keywords.includes(k));
    return named.length > 0 ? [{ url: page.url, keywords: named }] : [];
  });

/**
 * Stores a site's checks answered by shared SERPs: a SERP becomes the day's rank row as the site sees
 * it (and, when the day is today, the keyword's stored SERP, its latest pull); a task that failed for
 * good leaves the day without a row, stored failed with why. Answers another site's run paid for
 * (`cached`) get a $0 line on the meter, the ledger's `cached: true`.
 */
export async function storeAnswers(
  deps: { store: Store; serpQueue: SerpTaskQueue; meter: Meter; now: Date },
  view: SiteView,
  answers: ReadonlyArray<{ check: RankCheck; serp: Shared<SharedRankSerp> }>,
  cached: boolean,
): Promise<{ stored: number; failed: Array<{ keyword: string; error: string }> }> {
  const { store, serpQueue, meter, now } = deps;
  const { site_id: siteId, day, depth, site_domain: siteDomain } = view;
  const ready = answers.flatMap(({ check, serp }) => {
    if (!('items' in serp.value)) return [];
    const context = { siteDomain, competitors: view.competitors, day, pages: view.pages, device: check.device };
    const overview = serp.value.ai_overview;
    return [
      {
        check,
        serp,
        items: serpQueue.placeTracked(serp.value.items, check.keyword, check.locale, context),
        // The site's view of the SERP's AI Overview, beside its results (absent from a SERP collected before they were recorded).
        aiOverview: overview
          ? { ai_overview: serpQueue.citeTracked(overview, check.keyword, check.locale, context) }
          : {},
      },
    ];
  });
  await store.ranks.put(
    siteId,
    ready.map(({ check, serp, items, aiOverview }) => ({
      ...rankRowOf({
        keyword: check.keyword,
        locale: check.locale,
        device: check.device,
        day,
        checkedAt: serp.fetched_at,
        dataSource: serp.data_source,
        depth,
        items,
        siteDomain,
      }),
      ...aiOverview,
    })),
  );
  // Today's check is the keyword's latest SERP: list then skips it, and the landscape shows it; a live pull
  // is a desktop SERP, so a mobile check is not one.
  if (day === utcDay(now))
    await store.serps.putMany(
      siteId,
      ready
        .filter(({ check }) => check.device === 'desktop')
        .map(({ check, serp, items, aiOverview }) => ({
          keyword: check.keyword,
          locale: check.locale,
          fetched_at: serp.fetched_at,
          data_source: serp.data_source,
          items,
          ...aiOverview,
        })),
    );
  const failed = answers.flatMap(({ check, serp }) =>
    'error' in serp.value
      ? [{ keyword: check.keyword, locale: check.locale, device: check.device, day, error: serp.value.error }]
      : [],
  );
  // No SERP that day: the day has no row, and the history says why.
  if (failed.length > 0) await store.ranks.fail(siteId, failed, now);
  if (cached) answers.forEach(() => meter.recordCached({ provider: serpQueue.name, endpoint: serpQueue.postEndpoint }));
  return { stored: ready.length, failed: failed.map(({ keyword, error }) => ({ keyword, error })) };
}
