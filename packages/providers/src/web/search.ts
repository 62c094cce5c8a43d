import { PROVIDER_TIMEOUTS, roundUsd } from '@cm/contract';
import { TAVILY_PRICES } from '../prices';
import { errorField, isTimeout, ProviderError } from '../errors';
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
  /** Time limit of one HTTP attempt: connection, answer and body. */
  timeoutMs?: number;
  /** Time limit of every attempt and pause of one search together. */
  callTimeoutMs?: number;
}

/** One page found: `content` is the page's text when Tavily extracted it, else its snippet. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
}

type Attempt = { results: SearchResult[] } | { retryable: boolean; message: string; code?: number; timedOut?: boolean };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A body as JSON; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads Tavily's error detail, `{ detail: { error } }`, falling back to the HTTP status. */
function errorMessage(status: number, text: string): string {
  // Not JSON, or JSON without the detail: the status alone says enough.
  const body = SearchError.safeParse(parseJson(text));
  return body.success ? `HTTP ${status}: ${body.data.detail.error}` : `HTTP ${status}`;
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
    const endsAt = Date.now() + (this.options.callTimeoutMs ?? PROVIDER_TIMEOUTS.tavilyCallMs);
    const attemptMs = this.options.timeoutMs ?? PROVIDER_TIMEOUTS.tavilyAttemptMs;
    let last: Exclude<Attempt, { results: SearchResult[] }> = { retryable: true, message: 'no attempt made' };
    let attempts = 0;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        const backoff = Math.floor(Math.random() * (this.options.backoffMs ?? 500) * 2 ** attempt);
        await pause(Math.min(backoff, Math.max(0, endsAt - Date.now())));
      }
      const left = endsAt - Date.now();
      if (left <= 0 || meter.abandoned) break;
      attempts++;
      const answer = await this.post(body, depth, meter, Math.min(left, attemptMs));
      if ('results' in answer) return answer.results;
      if (!answer.retryable) throw new ProviderError(TAVILY, `search: ${answer.message}`, false, answer.code);
      last = answer;
    }
    throw new ProviderError(
      TAVILY,
      `search: ${last.message} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`,
      true,
      last.code,
      last.timedOut === true,
    );
  }

  private async post(
    body: Record<string, unknown>,
    depth: SearchDepth,
    meter: Meter,
    timeoutMs: number,
  ): Promise<Attempt> {
    const usdPerCredit = this.options.usdPerCredit ?? TAVILY_USD_PER_CREDIT;
    const estimate = roundUsd(CREDITS[depth] * usdPerCredit);
    const hold = await meter.reserve(estimate, { provider: TAVILY, endpoint: 'search' });
    const limit = meter.attemptLimit(timeoutMs);
    const signal = limit.signal;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.baseUrl}/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
      // The body is read under the same time limit: a provider that sends headers and then stalls is hanging too.
      text = await response.text();
    } catch (error) {
      // A run given up (its deadline) cut the attempt: that says nothing of the provider.
      if (!meter.abandoned) meter.report(TAVILY, false);
      const timedOut = signal.aborted || isTimeout(error);
      meter.unanswered({ provider: TAVILY, endpoint: 'search', cost_usd: estimate }, hold, timedOut);
      return {
        retryable: true,
        message: timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${errorField(error, 'message')}`,
        timedOut,
      };
    } finally {
      limit.clear();
    }
    meter.report(TAVILY, response.status < 500);
    if (response.status !== 200) {
      // Tavily bills successful searches only; the failed call is still on the ledger, at no cost.
      meter.record({ provider: TAVILY, endpoint: 'search', cost_usd: 0 }, hold);
      return {
        retryable: retryableStatus(response.status),
        message: errorMessage(response.status, text),
        code: response.status,
      };
    }
    const parsed = SearchResponse.safeParse(parseJson(text));
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
