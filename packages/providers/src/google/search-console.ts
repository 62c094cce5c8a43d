import type { SearchDevice } from '@cm/contract';
import * as z from 'zod/mini';
import { ProviderError } from '../errors';
import { OutOfTime, type Meter } from '../meter';
import type { SearchConsoleContext, SearchConsoleDay, SearchConsoleProvider } from '../types';
import { GoogleRequests, type GoogleAnswer, type GoogleRequestOptions } from './request';
import {
  ApiError,
  GoogleDevice,
  PagesAnswer,
  QueriesAnswer,
  ServiceAccountKey,
  TotalsAnswer,
} from './responses.decoder';
import { GOOGLE_TOKEN_URL, ServiceAccountTokens } from './token';

/*
 * Google Search Console (the Webmasters v3 API's searchAnalytics.query), read with the deployment's
 * service account: the owner of a property adds the account's e-mail as a user of it. Free, within
 * the project's quotas (docs/api/search-console.md#the-google-client).
 */

export const GOOGLE_SEARCH_CONSOLE = 'google-search-console';
export const SEARCH_ANALYTICS_QUERY = 'searchAnalytics.query';
const SCOPE = 'https://www.googleapis.com/auth/webmasters.readonly';
const API_BASE_URL = 'https://www.googleapis.com/webmasters/v3';
/** The most rows one query answers: a day with more is asked page after page. */
export const ROW_LIMIT = 25_000;
/**
 * Google keeps at most 50,000 rows a day per search type and property
 * (https://support.google.com/webmasters/answer/12919192): two full pages, then an empty one. A
 * third full page would be past that; paging stops there, so an endless answer cannot exhaust memory.
 */
const PAGES_MAX = 3;
/**
 * The least time a query holds its worker, answered or not: the search-console queue runs 5 workers
 * at once, so the deployment's one service account asks at most 5 × 4 × 60 = 1,200 queries a minute,
 * Google's per-user quota, however fast Google answers (docs/api/search-console.md#quotas).
 */
export const QUERY_SPACING_MS = 250;

const pauseFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface GoogleSearchConsoleOptions extends GoogleRequestOptions {
  /** Another token endpoint (tests: a loopback stand-in); the assertion's audience is this URL. */
  tokenUrl?: string;
  /** Another base of the Webmasters v3 API (tests: a loopback stand-in). */
  apiBaseUrl?: string;
  /** The clock tokens are kept and queries spaced by (tests). */
  now?: () => number;
  /** How the client waits out a query's spacing (tests record it). */
  pause?: (ms: number) => Promise<void>;
}

/** The service account's key as its JSON holds it, decoded: a key without its e-mail or private key is refused here, naming what is missing. */
export function serviceAccountKey(json: unknown): ServiceAccountKey {
  const decoded = z.safeParse(ServiceAccountKey, json);
  if (decoded.success) return decoded.data;
  const fields = decoded.error.issues.map((issue) => issue.path.join('.') || 'the key').join(', ');
  throw new Error(`the Search Console service account key is not a service account's JSON key (${fields})`);
}

const DEVICES: Record<z.infer<typeof GoogleDevice>, SearchDevice> = {
  DESKTOP: 'desktop',
  MOBILE: 'mobile',
  TABLET: 'tablet',
};

/** A read of a day: its dimensions, Google's aggregation of them, and its answer's decoder. */
interface Read<Row> {
  dimensions: readonly string[];
  aggregationType: 'byProperty' | 'byPage';
  answer: z.ZodMiniType<{ rows?: Row[] | undefined }>;
}
type RowOf<Answer extends z.ZodMiniType<{ rows?: unknown[] | undefined }>> = NonNullable<
  z.infer<Answer>['rows']
>[number];

/*
 * The day's three reads (docs/api/search-console.md#the-import). Google leaves the searches of
 * anonymised queries out of every row that has the query, so only a read without page and query counts
 * them all: the totals by device and country (by property, as Search Console's chart counts them), the
 * pages by device (by page), then the (page, query) rows.
 */
const TOTALS: Read<RowOf<typeof TotalsAnswer>> = {
  dimensions: ['device', 'country'],
  aggregationType: 'byProperty',
  answer: TotalsAnswer,
};
const PAGES: Read<RowOf<typeof PagesAnswer>> = {
  dimensions: ['page', 'device'],
  aggregationType: 'byPage',
  answer: PagesAnswer,
};
const QUERIES: Read<RowOf<typeof QueriesAnswer>> = {
  dimensions: ['page', 'query'],
  aggregationType: 'byPage',
  answer: QueriesAnswer,
};

/** A row's figures as the interface has them (Google's CTR is clicks / impressions, left out). */
const figuresOf = (row: { clicks: number; impressions: number; position: number }) => ({
  clicks: row.clicks,
  impressions: row.impressions,
  position: row.position,
});

/** Search Console over HTTPS with a service account's key. */
class GoogleSearchConsole implements SearchConsoleProvider {
  readonly name = GOOGLE_SEARCH_CONSOLE;
  readonly serviceAccount: string;
  readonly readsKeywords = false;
  private readonly requests: GoogleRequests;
  private readonly tokens: ServiceAccountTokens;
  private readonly apiBaseUrl: string;
  private readonly now: () => number;
  private readonly pause: (ms: number) => Promise<void>;

  constructor(key: ServiceAccountKey, options: GoogleSearchConsoleOptions) {
    this.serviceAccount = key.client_email;
    this.now = options.now ?? Date.now;
    this.pause = options.pause ?? pauseFor;
    this.requests = new GoogleRequests(GOOGLE_SEARCH_CONSOLE, options);
    this.tokens = new ServiceAccountTokens(
      key,
      SCOPE,
      this.requests,
      GOOGLE_SEARCH_CONSOLE,
      options.tokenUrl ?? GOOGLE_TOKEN_URL,
      this.now,
    );
    this.apiBaseUrl = (options.apiBaseUrl ?? API_BASE_URL).replace(/\/+$/, '');
  }

  async dayRows(
    property: string,
    date: string,
    state: 'final' | 'fresh',
    _context: SearchConsoleContext,
    meter: Meter,
  ): Promise<SearchConsoleDay> {
    const day = { property, date, state, calls: 0 };
    const totals = await this.read(day, TOTALS, meter);
    // No rows without page and query: a day not final yet (or of no search at all), one call.
    if (totals.length === 0) return { totals: [], pages: [], queries: [], calls: day.calls };
    const pages = await this.read(day, PAGES, meter);
    const queries = await this.read(day, QUERIES, meter);
    return {
      totals: totals.map((row) => ({
        device: DEVICES[row.keys[0]],
        country: row.keys[1].toLowerCase(),
        ...figuresOf(row),
      })),
      pages: pages.map((row) => ({ page: row.keys[0], device: DEVICES[row.keys[1]], ...figuresOf(row) })),
      queries: queries.map((row) => ({ page: row.keys[0], query: row.keys[1], ...figuresOf(row) })),
      calls: day.calls,
    };
  }

  /** One read of the day: every page of ROW_LIMIT rows, one after the other, until one comes back short. */
  private async read<Row>(
    day: { property: string; date: string; state: 'final' | 'fresh'; calls: number },
    read: Read<Row>,
    meter: Meter,
  ): Promise<Row[]> {
    const url = `${this.apiBaseUrl}/sites/${encodeURIComponent(day.property)}/searchAnalytics/query`;
    const rows: Row[] = [];
    for (let page = 0; page < PAGES_MAX; page++) {
      if (meter.abandoned) throw new OutOfTime();
      const request = {
        startDate: day.date,
        endDate: day.date,
        dimensions: read.dimensions,
        type: 'web',
        aggregationType: read.aggregationType,
        dataState: day.state === 'final' ? 'final' : 'all',
        rowLimit: ROW_LIMIT,
        startRow: page * ROW_LIMIT,
      };
      const authorization = `Bearer ${await this.tokens.token(meter)}`;
      const answer = await this.spaced(() =>
        this.requests.post(
          url,
          { type: 'application/json', data: JSON.stringify(request), headers: { authorization } },
          meter,
        ),
      );
      day.calls++;
      meter.record({ provider: GOOGLE_SEARCH_CONSOLE, endpoint: SEARCH_ANALYTICS_QUERY, cost_usd: 0 });
      if (answer.status !== 200) throw this.refused(day.property, answer);
      const decoded = z.safeParse(read.answer, answer.body);
      if (!decoded.success) {
        // Retryable: a glitch passes, and a changed format reaches the queue's dead letters, not the site's connection.
        const where = decoded.error.issues.map((issue) => `${issue.path.join('.') || 'its root'}: ${issue.message}`);
        throw new ProviderError(
          GOOGLE_SEARCH_CONSOLE,
          `${SEARCH_ANALYTICS_QUERY}: unreadable answer at ${where[0]}`,
          true,
        );
      }
      const found = decoded.data.rows ?? [];
      rows.push(...found);
      if (found.length < ROW_LIMIT) break;
    }
    return rows;
  }

  /** A query that holds its worker QUERY_SPACING_MS at least, answered or failed. */
  private async spaced<T>(query: () => Promise<T>): Promise<T> {
    const start = this.now();
    try {
      return await query();
    } finally {
      const left = start + QUERY_SPACING_MS - this.now();
      if (left > 0) await this.pause(left);
    }
  }

  /**
   * Why a query gave no rows. 401 and 403: the account may not read the property (the owner has not
   * added it, or removed it), which only the owner mends; 429 (quota) and 5xx pass with time.
   */
  private refused(property: string, answer: GoogleAnswer): ProviderError {
    const { status } = answer;
    const error = z.safeParse(ApiError, answer.body);
    const detail = error.success ? error.data.error.message : `HTTP ${status}`;
    if (status === 401) this.tokens.forget();
    if (status === 401 || status === 403)
      return new ProviderError(
        GOOGLE_SEARCH_CONSOLE,
        `Search Console refused the service account ${this.serviceAccount} access to ${property} (${detail}): the property's owner must add ${this.serviceAccount} as a user of the property in Search Console (Settings, Users and permissions)`,
        false,
        status,
      );
    const retryable = status === 429 || status >= 500;
    return new ProviderError(
      GOOGLE_SEARCH_CONSOLE,
      `${SEARCH_ANALYTICS_QUERY}: HTTP ${status} ${detail}`,
      retryable,
      status,
    );
  }
}

/** The Search Console provider reading with the service account `key` (decoded by {@link serviceAccountKey}). */
export const googleSearchConsole = (
  key: ServiceAccountKey,
  options: GoogleSearchConsoleOptions = {},
): SearchConsoleProvider => new GoogleSearchConsole(key, options);
