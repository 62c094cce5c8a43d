import { roundUsd, type Findings, type JobMode, type KeywordMetrics, type SerpItem } from '@cm/contract';

/** One call to a provider, as the usage ledger records it; a free or failed-unbilled call costs 0. */
export interface ProviderCall {
  provider: string;
  endpoint: string;
  cost_usd: number;
  /** The sandbox charging list prices (SANDBOX_LIST_PRICES=1): no money was billed. */
  simulated?: boolean;
}

/** A paid call's estimate, reserved against the budget before the call; settled to its bill after it. */
export interface Hold {
  settle(billedUsd: number, simulated: boolean): Promise<void>;
}

/**
 * The budget a meter spends from: `reserve` holds a paid call's estimate before the call is made, or
 * throws (402 budget_exceeded) when it does not fit, so no provider is called.
 */
export interface SpendGuard {
  reserve(estimateUsd: number): Promise<Hold>;
}

export interface MeterOptions {
  /** Reserves each paid call's estimate before the call; none: calls are only recorded (queued work reserved when it was accepted). */
  guard?: SpendGuard;
  /** The sandbox charges the real providers' list prices, marked simulated (SANDBOX_LIST_PRICES=1). */
  listPrices?: boolean;
}

/**
 * Collects the calls a request makes, so the ledger records each one even when the request fails; and
 * with a guard, reserves each paid call's estimate before the call and settles it to the bill after.
 */
export class Meter {
  readonly calls: ProviderCall[] = [];
  private readonly settling: Array<Promise<void>> = [];

  constructor(private readonly options: MeterOptions = {}) {}

  /** Whether the sandbox charges list prices on this meter. */
  get listPrices(): boolean {
    return this.options.listPrices === true;
  }

  /** Before a paid call: reserves its estimate (nothing for a free call, or without a guard); throws when it does not fit the budget. */
  async reserve(estimateUsd: number): Promise<Hold | null> {
    return this.options.guard && estimateUsd > 0 ? this.options.guard.reserve(estimateUsd) : null;
  }

  /** After a call: records it, and settles its reservation to what it cost (a failed call's 0 releases it). */
  record(call: ProviderCall, hold: Hold | null = null): void {
    this.calls.push(call);
    // A settle that fails leaves its reservation held until its lease ends, when the next refused call reclaims it.
    if (hold) this.settling.push(hold.settle(call.cost_usd, call.simulated === true).catch(() => undefined));
  }

  /** After a call that never reached the provider (nothing billed, nothing for the ledger): frees its reservation. */
  release(hold: Hold | null): void {
    if (hold) this.settling.push(hold.settle(0, false).catch(() => undefined));
  }

  /** Waits until every reservation recorded so far is settled. */
  async settled(): Promise<void> {
    await Promise.all(this.settling);
  }

  get costUsd(): number {
    return roundUsd(this.calls.reduce((sum, c) => sum + c.cost_usd, 0));
  }

  /** Whether any recorded cost is the sandbox's list price rather than billed money. */
  get simulated(): boolean {
    return this.calls.some((c) => c.simulated === true);
  }
}

/** A provider failed after its retries; `retryable` tells the caller whether trying later may help. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryable: boolean,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** url research may not or cannot read the URL: the caller's fault, not a provider failure, and never retried. */
export class UrlRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UrlRefused';
  }
}

/** What a SERP pull may know about the site, so the sandbox can place the site and its rivals in it. */
export interface SerpContext {
  siteDomain: string | null;
  competitors: readonly string[];
}

/** Keyword metrics, keyword ideas and organic SERPs: the paid keyword data of spec §4.3. */
export interface KeywordDataProvider {
  /** The `data_source` of what it returns: `sandbox` or the real provider's name. */
  readonly name: string;
  /** Metrics of each keyword the data knows; a keyword missing from the map has no data. */
  keywordMetrics(keywords: readonly string[], locale: string, meter: Meter): Promise<Map<string, KeywordMetrics>>;
  /** Up to `limit` keyword ideas related to the seeds, with their metrics. */
  keywordIdeas(seeds: readonly string[], locale: string, limit: number, meter: Meter): Promise<KeywordMetrics[]>;
  /** The top `depth` organic results of Google for a keyword. */
  serpOrganic(keyword: string, locale: string, depth: number, meter: Meter, context: SerpContext): Promise<SerpItem[]>;
}

export interface ResearchRequest {
  mode: JobMode;
  /** The query (web, reddit) or the https URL (url). */
  query: string;
  question: string | null;
}

/** The `data_source` of real web research: pages found by Tavily (or fetched), synthesized by Bedrock. */
export const WEB_RESEARCH = 'tavily+bedrock';

/** Web research: search (or fetch a page), then synthesize facts and opinions citing their sources. */
export interface ResearchProvider {
  readonly name: string;
  research(request: ResearchRequest, meter: Meter): Promise<Findings>;
}

/* Backlinks (spec §2.7): a domain's profile, its individual links, and the link gap against competitors. */

export interface BacklinkSummary {
  backlinks: number;
  referring_domains: number;
  /** Domain rank, on the authority scale (LIMITS.authorityMin to authorityMax). */
  rank: number;
  /** 0–100: how spammy the backlinks look. */
  spam_score: number;
  /** Backlinks pointing at pages of the domain that are broken. */
  broken_links: number;
  /** Share of backlinks that are dofollow, 0–1. */
  dofollow_share: number;
}

/** One month of a domain's profile; `new_referring_domains` are those first seen that month. */
export interface BacklinkTrendPoint {
  /** `yyyy-mm`. */
  month: string;
  backlinks: number;
  referring_domains: number;
  new_referring_domains: number;
  rank: number;
}

export interface AnchorShare {
  anchor: string;
  backlinks: number;
  /** Share of the domain's backlinks with this anchor, 0–1. */
  share: number;
}

/** One backlink: the page linking, the page of the domain it points to, its anchor and the linking page's authority. */
export interface LinkingPage {
  url_from: string;
  url_to: string;
  anchor: string;
  /** Authority of the linking page (LIMITS.authorityMin to authorityMax), higher is stronger. */
  authority: number;
  dofollow: boolean;
  first_seen: string | null;
}

export interface ReferringDomain {
  domain: string;
  /** 0–1000. */
  rank: number;
  backlinks: number;
}

/** What monitoring stores of a domain on a day. */
export interface BacklinkProfile {
  domain: string;
  summary: BacklinkSummary;
  /** Monthly points, oldest first, up to LIMITS.trendMonthsMax months back. */
  trend: BacklinkTrendPoint[];
  /** Top anchors by backlinks, at most 20. */
  anchors: AnchorShare[];
  /** Strongest linking pages, by authority, at most 20. */
  top_linking_pages: LinkingPage[];
  /** Strongest referring domains, by rank, at most 100. */
  referring_domains: ReferringDomain[];
}

/** A domain linking to some of the competitors and not to the site. */
export interface GapDomain {
  domain: string;
  /** 0–1000. */
  rank: number;
  /** The competitors (of those asked about) it links to. */
  links_to: string[];
}

export interface BacklinkDataProvider {
  readonly name: string;
  /** The domain's profile now: summary, monthly trend (LIMITS.trendMonthsMax months), anchors, top linking pages, referring domains. */
  profile(domain: string, meter: Meter): Promise<BacklinkProfile>;
  /** Up to `limit` (≤ LIMITS.linksMax) backlinks of the domain, strongest linking page first. */
  links(domain: string, limit: number, meter: Meter): Promise<LinkingPage[]>;
  /** Up to `limit` domains linking to at least one competitor and never to the site, strongest first. */
  linkGap(site: string, competitors: readonly string[], limit: number, meter: Meter): Promise<GapDomain[]>;
}
