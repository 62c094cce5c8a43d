import { LIMITS, type SearchConsoleMessage } from '@cm/contract';
import {
  emptyDayIsFinal,
  normalizeDomain,
  normalizeKeyword,
  pageOfUrl,
  pageUrlOn,
  searchConsoleToday,
  searchDayOf,
  trackedDay,
  type SearchPageRef,
} from '@cm/core';
import { ProviderError, type Meter, type SearchConsoleContext, type SearchConsoleProvider } from '@cm/providers';
import { keywordUnique, type Site, type Store } from '@cm/store';
import { pageKeywords } from './context';
import { recordCalls } from './ledger';
import { evaluateDecay } from './search-decay';

/*
 * A site's Search Console day imported (docs/api/search-console.md#the-import): the property's rows of
 * the day, one page of 25,000 after another, made into one capped SearchDay (matched to the site's pages
 * and keyword rows) and stored once. A final day already stored is not asked again: a redelivered or
 * repeated message makes no provider call and writes nothing.
 */

/** The ledger's tool of the imports: each call at $0. */
const SEARCH_CONSOLE_TOOL = 'search_console';
/** cm_pages rows one read takes. */
const ROWS_PER_READ = 1000;

export interface SearchImportDeps {
  store: Store;
  searchConsole: SearchConsoleProvider;
  meter: Meter;
  now: Date;
}

/**
 * What an import did: stored the day, found it final already, found no connection, the provider refused
 * it, or found the day not final yet at Google (no rows: nothing stored, the next days' plans ask again).
 */
export type SearchImportOutcome = 'stored' | 'final_already' | 'not_connected' | 'refused' | 'not_ready';

/** The site's cm_pages rows that name a published page: a Query of its rows, ROWS_PER_READ at a time. */
async function publishedRows(store: Store, siteId: number) {
  const rows = [];
  let cursor: string | undefined;
  do {
    const page = await store.rows.select(siteId, 'cm_pages', {}, ROWS_PER_READ, cursor);
    rows.push(...page.rows.filter((row) => row.published_id !== undefined));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return rows;
}

/**
 * The site's live pages (up to LIMITS.searchDayPages, the newest: one Query per type), how a row's URL
 * finds one, and what the sandbox may know of them: each one's URL and its cm_pages row's keywords.
 * A URL of an older page keeps `page: null` (docs/api/search-console.md#the-import).
 */
async function sitePages(store: Store, site: Site, siteDomain: string, today: string, readsKeywords: boolean) {
  const [live, rows] = await Promise.all([
    store.pageListings.livePages(site.site_id, ['article', 'question'], { limit: LIMITS.searchDayPages }),
    // Only the sandbox derives its rows from them: Google's import reads no cm_pages row.
    readsKeywords ? publishedRows(store, site.site_id) : [],
  ]);
  const bySlug = new Map(live.pages.map((page) => [`${page.type}\n${page.slug}`, { type: page.type, id: page.id }]));
  const keywordsOf = new Map(rows.map((row) => [row.published_id, pageKeywords(row)]));
  const context: SearchConsoleContext = {
    siteDomain,
    locale: site.locale,
    today,
    pages: live.pages.map((page) => ({
      url: pageUrlOn(siteDomain, page.type, page.slug),
      keywords: keywordsOf.get(page.id) ?? [],
    })),
  };
  const pageOf = (url: string): SearchPageRef | null =>
    pageOfUrl(url, siteDomain, (type, slug) => bySlug.get(`${type}\n${slug}`) ?? null);
  return { context, pageOf };
}

/** The day's queries that one of the site's keyword rows has (normalized, in the site's locale): batched reads. */
async function trackedQueries(store: Store, site: Site, queries: readonly string[]): Promise<Set<string>> {
  const normalized = [...new Set(queries.map(normalizeKeyword))];
  const found = await store.rows.idsByUnique(
    site.site_id,
    'cm_keywords',
    normalized.map((keyword) => keywordUnique(site.locale, keyword)),
  );
  return new Set(normalized.filter((keyword) => found.has(keywordUnique(site.locale, keyword))));
}

/**
 * Imports the message's day for its site: nothing when the site is not connected, or the day is stored
 * final already (no provider call); else the rows, the day stored, the connection's status and last day
 * updated, and the calls in the ledger at $0. A refusal (the account is not a user of the property) marks
 * the connection failed with why; one worth retrying also fails the message, so it is delivered again.
 * No rows for a final day newer than the oldest the daily plan asks stores nothing ('not_ready').
 */
export async function importSearchDay(
  deps: SearchImportDeps,
  message: SearchConsoleMessage,
): Promise<SearchImportOutcome> {
  const { store, searchConsole, meter, now } = deps;
  const { site_id: siteId, date, state } = message;
  const [connection, site] = await Promise.all([store.searchConsole.get(siteId), store.sites.get(siteId)]);
  // Google's URLs are on the host the site is served at.
  const siteDomain = site ? (site.served_domain ?? normalizeDomain(site.domain)) : null;
  if (!connection || !site || !siteDomain) return 'not_connected';
  if (await store.searchDays.isFinal(siteId, date)) return 'final_already';
  const today = searchConsoleToday(now);
  const { context, pageOf } = await sitePages(store, site, siteDomain, today, searchConsole.readsKeywords);
  let rows;
  try {
    rows = await searchConsole.dayRows(connection.property, date, state, context, meter);
  } catch (error) {
    await recordCalls(store, siteId, SEARCH_CONSOLE_TOOL, meter);
    if (!(error instanceof ProviderError)) throw error;
    await store.searchConsole.recordImport(siteId, connection.property, date, error.message);
    if (error.retryable) throw error;
    return 'refused';
  }
  // Google answers a day it has not made final yet with no rows: stored, that would be final forever.
  if (rows.totals.length === 0 && state === 'final' && !emptyDayIsFinal(date, today)) {
    await recordCalls(store, siteId, SEARCH_CONSOLE_TOOL, meter);
    return 'not_ready';
  }
  const day = searchDayOf({
    date,
    state,
    dataSource: searchConsole.name,
    importedAt: now.toISOString(),
    rows,
    pageOf,
  });
  const tracked = await trackedQueries(
    store,
    site,
    day.queries.map((q) => q.query),
  );
  await store.searchDays.put(siteId, trackedDay(day, tracked));
  await recordCalls(store, siteId, SEARCH_CONSOLE_TOOL, meter);
  // Read at last after a refusal (the account added late): the daily plan asks the refused days again (a
  // worker never sends to its own queue).
  await store.searchConsole.recordImport(siteId, connection.property, date, null, connection.status === 'failed');
  // Decay is judged on the newest day imported: a backfill's older days leave it to the newest.
  const through = connection.imported_through;
  const newest = through !== undefined && through > date ? through : date;
  await evaluateDecay(store, siteId, newest);
  return 'stored';
}
