import type { Findings, JobMode, KeywordMetrics, SerpItem } from '@cm/contract';
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
