import type {
  AiOverview,
  BacklinkDetail,
  BacklinkNumbers,
  BacklinkProfile,
  BacklinkTrendPoint,
  Device,
  Findings,
  GapDomain,
  JobMode,
  KeywordMetrics,
  LinkingPage,
  SerpItem,
} from '@cm/contract';
import type { SearchDayRows } from '@cm/core';
import type { Meter } from './meter';

/* The providers' interfaces, and the data they return. */

/** What a site's view of a public SERP may know about the site, so the sandbox can place the site and its rivals in it. */
export interface SerpContext {
  siteDomain: string | null;
  competitors: readonly string[];
  /** A rank check's day: the sandbox moves positions from day to day (a real SERP is always today's). */
  day?: string;
  /** The site's published pages and their keywords: the sandbox ranks them for those now and then. */
  pages?: ReadonlyArray<{ url: string; keywords: readonly string[] }>;
  /** A rank check's device: the sandbox places the domains of a mobile SERP a little apart from the desktop one. */
  device?: Device;
}

/** A SERP task for the provider's standard queue: `tag` names it in the answer. Public: nothing of a site's. */
export interface SerpTask {
  tag: string;
  keyword: string;
  locale: string;
  /** The device Google's results are asked for: a mobile SERP is other data than a desktop one, at the same price. */
  device: Device;
  depth: number;
}

/** A task posted (its id, to collect it by), or refused (nothing to collect; `retryable`: posting it later may work). */
export type PostedSerpTask = { tag: string; id: string } | { tag: string; error: string; retryable: boolean };

/** A posted task collected: its results and AI Overview, not ready yet, or failed for good (no SERP that day). */
export type CollectedSerpTask =
  | { status: 'ready'; items: SerpItem[]; aiOverview: AiOverview }
  | { status: 'pending'; reason: string }
  | { status: 'failed'; error: string };

/** Keyword metrics, keyword ideas and organic SERPs: the paid keyword data of spec §4.3. */
export interface KeywordDataProvider {
  /** The `data_source` of what it returns: `sandbox` or the real provider's name. */
  readonly name: string;
  /** Metrics of each keyword the data knows; a keyword missing from the map has no data. */
  keywordMetrics(keywords: readonly string[], locale: string, meter: Meter): Promise<Map<string, KeywordMetrics>>;
  /** Up to `limit` keyword ideas related to the seeds, with their metrics. */
  keywordIdeas(seeds: readonly string[], locale: string, limit: number, meter: Meter): Promise<KeywordMetrics[]>;
  /** The top `depth` organic results of Google for a keyword: public data, the same answer whichever site asks. */
  serpOrganic(keyword: string, locale: string, depth: number, meter: Meter): Promise<SerpItem[]>;
  /**
   * A public SERP (serpOrganic's answer) as a site sees it: a real provider's is the site's as it is;
   * the sandbox, which knows no real rankings, places the site and its competitors in it. Free.
   */
  placeTracked(items: readonly SerpItem[], keyword: string, locale: string, context: SerpContext): SerpItem[];
}

/** Organic SERPs on the provider's standard queue (rank checks): tasks posted, many to a call, then collected when ready. */
export interface SerpTaskQueue {
  readonly name: string;
  /** The ledger's endpoint of a posted task: a check answered from the shared cache names it too. */
  readonly postEndpoint: string;
  /** Tasks one post takes at most. */
  readonly tasksPerPost: number;
  /** How long after a post its tasks are usually ready, in seconds: when to collect them first. */
  readonly readySeconds: number;
  /**
   * Posts SERP tasks in one paid call; each task is recorded on the meter at its own cost. Throws
   * UnknownOutcome when whether the tasks were posted (and paid for) is not known, and a ProviderError
   * when the post was refused whole.
   */
  post(tasks: readonly SerpTask[], meter: Meter): Promise<PostedSerpTask[]>;
  /** A posted task's top `depth` organic results once ready (a free call: the meter times it, nothing is recorded). */
  collect(id: string, depth: number, meter: Meter): Promise<CollectedSerpTask>;
  /**
   * A collected SERP (public, the same for every site) as a site sees it on its check's day: a real
   * provider's as it is; the sandbox, which knows no real rankings, places the site, its pages and its
   * competitors in it. Free.
   */
  placeTracked(items: readonly SerpItem[], keyword: string, locale: string, context: SerpContext): SerpItem[];
  /** A collected SERP's AI Overview as a site sees it, as placeTracked places its results: the sandbox cites the site and its competitors now and then. Free. */
  citeTracked(overview: AiOverview, keyword: string, locale: string, context: SerpContext): AiOverview;
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

/* Backlinks (spec §2.7): the data is the contract's (monitoring stores it); the provider's interface is here. */
export type {
  AnchorShare,
  BacklinkDetail,
  BacklinkNumbers,
  BacklinkProfile,
  BacklinkSummary,
  BacklinkTrendPoint,
  GapDomain,
  LinkingPage,
  ReferringDomain,
} from '@cm/contract';

export interface BacklinkDataProvider {
  readonly name: string;
  /** The ledger's endpoints of one domain's daily numbers: each bulk request `numbers` makes. */
  readonly numbersEndpoints: readonly string[];
  /** The domain's profile now: summary, monthly trend (LIMITS.trendMonthsMax months), anchors, top linking pages, referring domains. */
  profile(domain: string, meter: Meter): Promise<BacklinkProfile>;
  /**
   * The daily numbers of up to BULK_TARGETS domains in one batch of bulk requests, each recorded on the
   * meter at its whole bill; a domain the provider knows nothing of has empty numbers.
   */
  numbers(domains: readonly string[], meter: Meter): Promise<Map<string, BacklinkNumbers>>;
  /** The domain's monthly trend (LIMITS.trendMonthsMax months to this one), in one range call. */
  trend(domain: string, meter: Meter): Promise<BacklinkTrendPoint[]>;
  /** The domain's anchors (shares of its `backlinks`), top linking pages and referring domains. */
  detail(domain: string, backlinks: number, meter: Meter): Promise<BacklinkDetail>;
  /** Up to `limit` (≤ LIMITS.linksMax) backlinks of the domain, strongest linking page first. */
  links(domain: string, limit: number, meter: Meter): Promise<LinkingPage[]>;
  /** Up to `limit` domains linking to at least one competitor and never to the site, strongest first. */
  linkGap(site: string, competitors: readonly string[], limit: number, meter: Meter): Promise<GapDomain[]>;
}

/** A day of Search Console's rows, in the three reads the import makes, and the calls they took. */
export interface SearchConsoleDay extends SearchDayRows {
  calls: number;
}

/** What the sandbox may know of the site to derive plausible rows (a real provider ignores it). */
export interface SearchConsoleContext {
  siteDomain: string;
  /** The site's live pages, their URLs and the keywords they are tracked or published for. */
  pages: ReadonlyArray<{ url: string; keywords: readonly string[] }>;
  /** The site's locale (`US/en`): the sandbox ranks the keywords in it, as the rank checks do (default `WW/en`). */
  locale?: string;
  /** Search Console's day (Pacific) of the import: the sandbox has no final rows of a day after its import day. */
  today?: string;
}

export interface SearchConsoleProvider {
  /** `sandbox`, or `google-search-console`. */
  readonly name: string;
  /** The e-mail of the service account the owner adds as a user of the property (null in the sandbox). */
  readonly serviceAccount: string | null;
  /** Whether its rows are derived from the pages' keywords (the sandbox): else the import reads none. */
  readonly readsKeywords: boolean;
  /**
   * The property's rows of one day, `final` or `fresh` (dataState all): by device and country, by page
   * and device, by page and query (each read every page of 25,000 rows, one after the other); a day
   * without rows in the first read is one call (Google's answer for a day not final yet). Free: the
   * meter records each call at $0.
   */
  dayRows(
    property: string,
    date: string,
    state: 'final' | 'fresh',
    context: SearchConsoleContext,
    meter: Meter,
  ): Promise<SearchConsoleDay>;
}
