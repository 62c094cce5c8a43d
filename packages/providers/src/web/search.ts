import { roundUsd } from '@cm/contract';
import { TAVILY_PRICES } from '../prices';
import { errorField, ProviderError } from '../errors';
import type { Meter } from '../meter';
import { SearchError, SearchResponse } from './responses.decoder';

export const TAVILY = 'tavily';
export const TAVILY_BASE_URL = 'https://api.tavily.com';
/** Tavily's pay-as-you-go price of one API credit. */
export const TAVILY_USD_PER_CREDIT = TAVILY_PRICES.usdPerCredit;

export type SearchDepth = 'basic' | 'advanced';
/** Tavily's documented price of a search in credits, for a response that does not report its usage. */
const CREDITS: Record<SearchDepth, number> = TAVILY_PRICES.searchCredits;

/** 401 (key), 403, 400 (request) and 432/433 (plan or pay-as-you-go limit) fail again however often they are tried. */
const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

export interface TavilyOptions {
  apiKey: string;
  baseUrl?: string;
  usdPerCredit?: number;
  depth?: SearchDepth;
  maxResults?: number;
  /** Attempts after the first for 429, 5xx and network failures. */
  retries?: number;
  /** Base of the backoff; each pause is a random share of `base × 2^attempt` (full jitter). */
  backoffMs?: number;
  /** Time limit of one HTTP attempt. */
  timeoutMs?: number;
}

/** One page found: `content` is the page's text when Tavily extracted it, else its snippet. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
}

type Attempt = { results: SearchResult[] } | { retryable: boolean; message: string; code?: number };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads Tavily's error detail, `{ detail: { error } }`, falling back to the HTTP status. */
async function errorMessage(response: Response): Promise<string> {
  // Not JSON, or JSON without the detail: the status alone says enough.
  const body = SearchError.safeParse(await response.json().catch(() => undefined));
  return body.success ? `HTTP ${response.status}: ${body.data.detail.error}` : `HTTP ${response.status}`;
}

/**
 * Tavily search over HTTP: pages with their extracted text, the credits of each search recorded on the
 * meter at their USD price, and jittered retries for rate limits and server errors only.
 */
export class TavilySearch {
  private readonly baseUrl: string;

  constructor(private readonly options: TavilyOptions) {
    this.baseUrl = (options.baseUrl ?? TAVILY_BASE_URL).replace(/\/+$/, '');
  }

  /** Up to `maxResults` pages for the query; `domains` keeps the search to those sites (e.g. reddit.com). */
  async search(query: string, opts: { domains?: string[] }, meter: Meter): Promise<SearchResult[]> {
    const depth = this.options.depth ?? 'basic';
    const body = {
      query,
      search_depth: depth,
      max_results: this.options.maxResults ?? 5,
      // Plain text rather than markdown: link markup would eat the synthesis's per-source budget.
      include_raw_content: 'text',
      include_answer: false,
      ...(opts.domains?.length ? { include_domains: opts.domains } : {}),
      include_usage: true,
    };
    const retries = this.options.retries ?? 2;
    let last = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await pause(Math.floor(Math.random() * (this.options.backoffMs ?? 500) * 2 ** attempt));
      const answer = await this.post(body, depth, meter);
      if ('results' in answer) return answer.results;
      if (!answer.retryable) throw new ProviderError(TAVILY, `search: ${answer.message}`, false, answer.code);
      last = answer.message;
    }
    throw new ProviderError(TAVILY, `search: ${last} (gave up after ${retries + 1} attempts)`, true);
  }

  private async post(body: Record<string, unknown>, depth: SearchDepth, meter: Meter): Promise<Attempt> {
    const usdPerCredit = this.options.usdPerCredit ?? TAVILY_USD_PER_CREDIT;
    const hold = await meter.reserve(roundUsd(CREDITS[depth] * usdPerCredit));
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 25_000),
      });
    } catch (error) {
      meter.record({ provider: TAVILY, endpoint: 'search', cost_usd: 0 }, hold);
      return { retryable: true, message: `request failed: ${errorField(error, 'message')}` };
    }
    if (response.status !== 200) {
      // Tavily bills successful searches only; the failed call is still on the ledger, at no cost.
      meter.record({ provider: TAVILY, endpoint: 'search', cost_usd: 0 }, hold);
      return {
        retryable: retryableStatus(response.status),
        message: await errorMessage(response),
        code: response.status,
      };
    }
    const parsed = SearchResponse.safeParse(await response.json().catch(() => undefined));
    const credits = (parsed.success ? parsed.data.usage?.credits : undefined) ?? CREDITS[depth];
    meter.record({ provider: TAVILY, endpoint: 'search', cost_usd: roundUsd(credits * usdPerCredit) }, hold);
    // A 200 is billed: an unreadable one is not retried here, lest it be billed again.
    if (!parsed.success) throw new ProviderError(TAVILY, 'search: unreadable response', true, 200);
    return {
      results: parsed.data.results.map((r) => ({
        title: r.title,
        url: r.url,
        content: r.raw_content?.trim() ? r.raw_content : r.content,
      })),
    };
  }
}
