import { LIMITS } from '@cm/contract';
import { Bug, monthStart } from '@cm/core';
import { ProviderError } from '../errors';
import type { Meter } from '../meter';
import { BULK_NUMBERS_ENDPOINTS, BULK_TARGETS } from '../prices';
import type {
  AnchorShare,
  BacklinkDataProvider,
  BacklinkDetail,
  BacklinkNumbers,
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
  NewLostBacklinksResult,
  NewLostReferringDomainsResult,
  PagesSummaryResult,
  ReferringDomainsResult,
  type PagesSummaryItem,
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
  bulkPagesSummary: BULK_NUMBERS_ENDPOINTS[0],
  bulkNewLostBacklinks: BULK_NUMBERS_ENDPOINTS[1],
  bulkNewLostReferringDomains: BULK_NUMBERS_ENDPOINTS[2],
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

/** A target as DataForSEO may echo it (`https://www.example.com/`) and as it was sent (`example.com`). */
const bareTarget = (target: string) =>
  target
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');

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
  readonly numbersEndpoints = BULK_NUMBERS_ENDPOINTS;
  private readonly client: DataForSeoClient;
  private readonly now: () => Date;

  constructor(options: DataForSeoBacklinkOptions) {
    this.client = new DataForSeoClient(options);
    this.now = options.now ?? (() => new Date());
  }

  /** Five calls at once: summary, timeseries, and the detail's anchors, top backlinks and referring domains. */
  async profile(domain: string, meter: Meter): Promise<BacklinkProfile> {
    const [summary, trend, anchors, pages, referring] = await settled([
      this.first(BACKLINK_ENDPOINTS.summary, { target: domain }, meter, SummaryResult),
      this.trend(domain, meter),
      this.anchors(domain, meter),
      this.links(domain, TOP_PAGES, meter),
      this.referringDomains(domain, meter),
    ]);
    const totals = summaryOf(summary);
    return { domain, summary: totals, trend, ...this.detailOf(totals.backlinks, anchors, pages, referring) };
  }

  /**
   * The daily numbers of up to BULK_TARGETS domains: three bulk requests at once (the pages summary, new
   * and lost backlinks, new and lost referring domains since the month began). A domain an answer has no
   * row for has none of what it counts: an empty profile, as the single-target summary answers it.
   */
  async numbers(domains: readonly string[], meter: Meter): Promise<Map<string, BacklinkNumbers>> {
    if (domains.length > BULK_TARGETS) throw new Bug(`at most ${BULK_TARGETS} domains a bulk request`);
    const answer = new Map<string, BacklinkNumbers>();
    if (domains.length === 0) return answer;
    const targets = [...domains];
    const dateFrom = monthStart(this.now(), 0).toISOString().slice(0, 10);
    const [pages, newLostLinks, newLostDomains] = await settled([
      this.first(BACKLINK_ENDPOINTS.bulkPagesSummary, { targets }, meter, PagesSummaryResult),
      this.first(
        BACKLINK_ENDPOINTS.bulkNewLostBacklinks,
        { targets, date_from: dateFrom },
        meter,
        NewLostBacklinksResult,
        false,
      ),
      this.first(
        BACKLINK_ENDPOINTS.bulkNewLostReferringDomains,
        { targets, date_from: dateFrom },
        meter,
        NewLostReferringDomainsResult,
        false,
      ),
    ]);
    const links = new Map((newLostLinks?.items ?? []).map((item) => [bareTarget(item.target), item]));
    const referring = new Map((newLostDomains?.items ?? []).map((item) => [bareTarget(item.target), item]));
    const summaries = new Map<string, PagesSummaryItem>();
    for (const item of pages?.items ?? []) {
      const named = item.url ?? item.target;
      if (named) summaries.set(bareTarget(named), item);
    }
    for (const domain of domains) {
      answer.set(domain, {
        summary: summaryOf(summaries.get(domain)),
        new_backlinks: int(links.get(domain)?.new_backlinks),
        lost_backlinks: int(links.get(domain)?.lost_backlinks),
        new_referring_domains: int(referring.get(domain)?.new_referring_domains),
        lost_referring_domains: int(referring.get(domain)?.lost_referring_domains),
      });
    }
    return answer;
  }

  /** The monthly trend, TREND_MONTHS months to this one: one range call. */
  async trend(domain: string, meter: Meter): Promise<BacklinkTrendPoint[]> {
    const from = monthStart(this.now(), TREND_MONTHS).toISOString().slice(0, 10);
    const timeseries = await this.first(
      BACKLINK_ENDPOINTS.timeseries,
      { target: domain, date_from: from, group_range: 'month' },
      meter,
      TimeseriesResult,
    );
    return trendOf(timeseries?.items ?? []);
  }

  /** Three calls at once: the top anchors (their shares of `backlinks`), top linking pages and referring domains. */
  async detail(domain: string, backlinks: number, meter: Meter): Promise<BacklinkDetail> {
    const [anchors, pages, referring] = await settled([
      this.anchors(domain, meter),
      this.links(domain, TOP_PAGES, meter),
      this.referringDomains(domain, meter),
    ]);
    return this.detailOf(backlinks, anchors, pages, referring);
  }

  private anchors(domain: string, meter: Meter) {
    return this.first(
      BACKLINK_ENDPOINTS.anchors,
      { target: domain, limit: ANCHORS, order_by: ['backlinks,desc'] },
      meter,
      AnchorsResult,
    );
  }

  private referringDomains(domain: string, meter: Meter) {
    return this.first(
      BACKLINK_ENDPOINTS.referringDomains,
      { target: domain, limit: REFERRING_DOMAINS, order_by: ['rank,desc'] },
      meter,
      ReferringDomainsResult,
    );
  }

  private detailOf(
    backlinks: number,
    anchors: AnchorsResult | undefined,
    pages: LinkingPage[],
    referring: ReferringDomainsResult | undefined,
  ): BacklinkDetail {
    return {
      anchors: (anchors?.items ?? []).slice(0, ANCHORS).map((a): AnchorShare => ({
        anchor: a.anchor ?? '',
        backlinks: int(a.backlinks),
        share: backlinks > 0 ? round4(int(a.backlinks) / backlinks) : 0,
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
    // The new-and-lost counts have no ranks, and no rank scale to ask for.
    ranked = true,
  ): Promise<T | undefined> {
    const answer = await this.client.task(endpoint, ranked ? { ...task, rank_scale: RANK_SCALE } : task, meter, result);
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
