import { roundUsd, type Findings, type JobMode, type KeywordMetrics, type SerpItem } from '@cm/contract';

/** One call to a provider, as the usage ledger records it; a free or failed-unbilled call costs 0. */
export interface ProviderCall {
  provider: string;
  endpoint: string;
  cost_usd: number;
}

/** Collects the calls a request makes, so the ledger records each one even when the request fails. */
export class Meter {
  readonly calls: ProviderCall[] = [];
  record(call: ProviderCall): void {
    this.calls.push(call);
  }
  get costUsd(): number {
    return roundUsd(this.calls.reduce((sum, c) => sum + c.cost_usd, 0));
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

/** Keyword metrics, keyword ideas and organic SERPs: the paid keyword data of seed 4.3. */
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
