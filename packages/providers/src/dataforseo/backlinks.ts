import { LIMITS } from '@cm/contract';
import { monthStart } from '@cm/core';
import { ProviderError } from '../errors';
import type { Meter } from '../meter';
import type {
  AnchorShare,
  BacklinkDataProvider,
  BacklinkProfile,
  BacklinkSummary,
  BacklinkTrendPoint,
  GapDomain,
  LinkingPage,
  ReferringDomain,
} from '../types';
import * as z from 'zod/mini';
import { DATAFORSEO, DataForSeoClient, STATUS, type DataForSeoOptions } from './client';
import {
  AnchorsResult,
  BacklinksResult,
  IntersectionResult,
  ReferringDomainsResult,
  SummaryResult,
  TimeseriesResult,
  type BacklinkItem,
  type TimeseriesItem,
} from './responses.decoder';

export const BACKLINK_ENDPOINTS = {
  summary: 'backlinks/summary/live',
  timeseries: 'backlinks/timeseries_summary/live',
  anchors: 'backlinks/anchors/live',
  backlinks: 'backlinks/backlinks/live',
  referringDomains: 'backlinks/referring_domains/live',
  domainIntersection: 'backlinks/domain_intersection/live',
} as const;

/** The trend covers the most months serp_backlinks may ask for. */
const TREND_MONTHS = LIMITS.trendMonthsMax;
const ANCHORS = 20;
const TOP_PAGES = 20;
const REFERRING_DOMAINS = 100;
/**
 * The most items one DataForSEO backlinks or domain-intersection call returns: the API's own cap, not
 * the spec's (LIMITS.linksMax, which happens to be the same, fits one call; links are not paged).
 */
const LIMIT_MAX = 1000;
/** DataForSEO's rank scales by their top; ranks are asked for on the spec's authority scale. */
const RANK_SCALES = { 100: 'one_hundred', 1000: 'one_thousand' } as const;
const RANK_SCALE = RANK_SCALES[LIMITS.authorityMax];

export interface DataForSeoBacklinkOptions extends DataForSeoOptions {
  /** The clock the trend's months end at. */
  now?: () => Date;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
const int = (n: number | null | undefined) => Math.round(n ?? 0);
/** DataForSEO dates (`2019-11-15 12:57:46 +00:00`) as `yyyy-mm-dd`. */
const dayOf = (date: string | null | undefined) => (date ? date.slice(0, 10) : null);

/** Waits for every call, so each one's cost is on the meter, then fails with the first failure if any. */
async function settled<T extends readonly unknown[] | []>(
  calls: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  for (const outcome of await Promise.allSettled(calls)) if (outcome.status === 'rejected') throw outcome.reason;
  return Promise.all(calls);
}

function summaryOf(result: SummaryResult | undefined): BacklinkSummary {
  const backlinks = int(result?.backlinks);
  // The summary has no dofollow count; its link attributes count the nofollow backlinks.
  const nofollow = result?.referring_links_attributes?.nofollow ?? 0;
  return {
    backlinks,
    referring_domains: int(result?.referring_domains),
    rank: int(result?.rank),
    spam_score: result?.backlinks_spam_score ?? 0,
    broken_links: int(result?.broken_backlinks),
    dofollow_share: backlinks > 0 ? round4(Math.min(1, Math.max(0, 1 - nofollow / backlinks))) : 0,
  };
}

/**
 * Monthly points, oldest first. The timeseries has no new-referring-domains field (that lives in
 * timeseries_new_lost_summary, a sixth call), so it is the month-over-month growth of referring
 * domains, never negative: net growth, a floor on the true number. The request starts a month
 * early so the first of the TREND_MONTHS months has a month before it to compare with. A point
 * without a date cannot be placed on the trend and is left out.
 */
function trendOf(items: readonly TimeseriesItem[]): BacklinkTrendPoint[] {
  const dated = items.flatMap((item) => (item.date ? [{ ...item, date: item.date }] : []));
  const sorted = dated.sort((a, b) => a.date.localeCompare(b.date));
  return sorted
    .flatMap((item, i) => {
      // The first point has none before it (sorted[-1] is undefined): it is only compared with.
      const before = sorted[i - 1];
      return before
        ? [
            {
              month: item.date.slice(0, 7),
              backlinks: int(item.backlinks),
              referring_domains: int(item.referring_domains),
              new_referring_domains: Math.max(0, int(item.referring_domains) - int(before.referring_domains)),
              rank: int(item.rank),
            },
          ]
        : [];
    })
    .slice(-TREND_MONTHS);
}

const linkOf = (item: BacklinkItem): LinkingPage => ({
  url_from: item.url_from,
  url_to: item.url_to,
  anchor: item.anchor ?? '',
  // page_from_rank is the rank of the linking page itself; `rank` is what the link passes to the target.
  authority: int(item.page_from_rank),
  dofollow: item.dofollow ?? false,
  first_seen: dayOf(item.first_seen),
});

const byAuthority = (a: LinkingPage, b: LinkingPage) => b.authority - a.authority;

/** Backlink profiles, linking pages and the link gap from the DataForSEO Backlinks API (ranks on the 0–1000 scale). */
export class DataForSeoBacklinkData implements BacklinkDataProvider {
  readonly name = DATAFORSEO;
  private readonly client: DataForSeoClient;
  private readonly now: () => Date;

  constructor(options: DataForSeoBacklinkOptions) {
    this.client = new DataForSeoClient(options);
    this.now = options.now ?? (() => new Date());
  }

  /** Five calls at once: summary, timeseries, anchors, top backlinks, referring domains. */
  async profile(domain: string, meter: Meter): Promise<BacklinkProfile> {
    const now = this.now();
    const from = monthStart(now, TREND_MONTHS).toISOString().slice(0, 10);
    const [summary, timeseries, anchors, pages, referring] = await settled([
      this.first(BACKLINK_ENDPOINTS.summary, { target: domain }, meter, SummaryResult),
      this.first(
        BACKLINK_ENDPOINTS.timeseries,
        { target: domain, date_from: from, group_range: 'month' },
        meter,
        TimeseriesResult,
      ),
      this.first(
        BACKLINK_ENDPOINTS.anchors,
        { target: domain, limit: ANCHORS, order_by: ['backlinks,desc'] },
        meter,
        AnchorsResult,
      ),
      this.links(domain, TOP_PAGES, meter),
      this.first(
        BACKLINK_ENDPOINTS.referringDomains,
        { target: domain, limit: REFERRING_DOMAINS, order_by: ['rank,desc'] },
        meter,
        ReferringDomainsResult,
      ),
    ]);
    const totals = summaryOf(summary);
    return {
      domain,
      summary: totals,
      trend: trendOf(timeseries?.items ?? []),
      anchors: (anchors?.items ?? []).slice(0, ANCHORS).map((a): AnchorShare => ({
        anchor: a.anchor ?? '',
        backlinks: int(a.backlinks),
        share: totals.backlinks > 0 ? round4(int(a.backlinks) / totals.backlinks) : 0,
      })),
      top_linking_pages: pages,
      referring_domains: (referring?.items ?? []).slice(0, REFERRING_DOMAINS).map((r): ReferringDomain => ({
        domain: r.domain,
        rank: int(r.rank),
        backlinks: int(r.backlinks),
      })),
    };
  }

  /** Every backlink as is (not one per domain), strongest linking page first. */
  async links(domain: string, limit: number, meter: Meter): Promise<LinkingPage[]> {
    const result = await this.first(
      BACKLINK_ENDPOINTS.backlinks,
      { target: domain, mode: 'as_is', order_by: ['page_from_rank,desc'], limit: Math.min(limit, LIMIT_MAX) },
      meter,
      BacklinksResult,
    );
    return (result?.items ?? []).map(linkOf).sort(byAuthority).slice(0, limit);
  }

  /**
   * Domain intersection of the competitors, excluding domains that link to the site. A domain's rank
   * is its strongest towards any competitor (DataForSEO ranks a referring domain per target).
   */
  async linkGap(site: string, competitors: readonly string[], limit: number, meter: Meter): Promise<GapDomain[]> {
    if (competitors.length === 0) return [];
    const targets = Object.fromEntries(competitors.map((c, i) => [String(i + 1), c]));
    const result = await this.first(
      BACKLINK_ENDPOINTS.domainIntersection,
      {
        targets,
        exclude_targets: [site],
        limit: Math.min(limit, LIMIT_MAX),
        order_by: ['intersections_count,desc', '1.rank,desc'],
      },
      meter,
      IntersectionResult,
    );
    const gap: GapDomain[] = [];
    for (const item of result?.items ?? []) {
      const linked = competitors.flatMap((competitor, i) => {
        const data = item.domain_intersection?.[String(i + 1)];
        return data ? [{ competitor, data }] : [];
      });
      const [first] = linked;
      if (!first) continue;
      gap.push({
        domain: first.data.target,
        rank: Math.max(...linked.map((l) => int(l.data.rank))),
        links_to: linked.map((l) => l.competitor),
      });
    }
    return gap
      .sort((a, b) => b.links_to.length - a.links_to.length || b.rank - a.rank || a.domain.localeCompare(b.domain))
      .slice(0, limit);
  }

  /**
   * The first result of a task on the 0–1000 rank scale; undefined when DataForSEO has nothing (a
   * domain without backlinks is a valid, empty profile). Billed without data is a failure worth
   * retrying later: storing it as an empty profile would read as every backlink lost.
   */
  private async first<T>(
    endpoint: string,
    task: Record<string, unknown>,
    meter: Meter,
    result: z.ZodMiniType<T>,
  ): Promise<T | undefined> {
    const answer = await this.client.task(endpoint, { ...task, rank_scale: RANK_SCALE }, meter, result);
    if (answer.outcome === 'billed_no_data') {
      throw new ProviderError(
        DATAFORSEO,
        `${endpoint}: ${STATUS.searchEngineError} no data for ${JSON.stringify(task.target ?? task.targets)}`,
        true,
        STATUS.searchEngineError,
      );
    }
    return answer.result[0];
  }
}
