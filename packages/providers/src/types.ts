import type {
  BacklinkProfile,
  Findings,
  GapDomain,
  JobMode,
  KeywordMetrics,
  LinkingPage,
  SerpItem,
} from '@cm/contract';
import type { Meter } from './meter';

/* The providers' interfaces, and the data they return. */

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

/* Backlinks (spec §2.7): the data is the contract's (monitoring stores it); the provider's interface is here. */
export type {
  AnchorShare,
  BacklinkProfile,
  BacklinkSummary,
  BacklinkTrendPoint,
  GapDomain,
  LinkingPage,
  ReferringDomain,
} from '@cm/contract';

export interface BacklinkDataProvider {
  readonly name: string;
  /** The domain's profile now: summary, monthly trend (LIMITS.trendMonthsMax months), anchors, top linking pages, referring domains. */
  profile(domain: string, meter: Meter): Promise<BacklinkProfile>;
  /** Up to `limit` (≤ LIMITS.linksMax) backlinks of the domain, strongest linking page first. */
  links(domain: string, limit: number, meter: Meter): Promise<LinkingPage[]>;
  /** Up to `limit` domains linking to at least one competitor and never to the site, strongest first. */
  linkGap(site: string, competitors: readonly string[], limit: number, meter: Meter): Promise<GapDomain[]>;
}
