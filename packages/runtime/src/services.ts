import type { BacklinkDataProvider, KeywordDataProvider, SearchConsoleProvider, SerpTaskQueue } from '@cm/providers';
import {
  BreakerStore,
  createDocumentClient,
  createStore,
  ElicitationStore,
  AccessTokenStore,
  OAuthStore,
  ResultStore,
  SiteStore,
  type Store,
} from '@cm/store';
import { getConfig, resetConfig } from './config';
import {
  backlinkDataFor,
  dataforseoCredentials,
  keywordDataFor,
  searchConsoleFor,
  searchConsoleKey,
  serpQueueFor,
} from './providers';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

type DocumentClient = ReturnType<typeof createDocumentClient>;

let client: DocumentClient | undefined;
let store: Store | undefined;
let sites: SiteStore | undefined;
let mcpStores: { results: ResultStore; elicitations: ElicitationStore } | undefined;
let breakers: BreakerStore | undefined;
let oauth: OAuthStore | undefined;
let accessTokens: AccessTokenStore | undefined;

/** The container's one DynamoDB client, which every store of it shares. */
function getDocumentClient(): DocumentClient {
  const { dynamoEndpoint, dynamoRequestTimeoutMs, dynamoConnectionTimeoutMs, region } = getConfig();
  return (client ??= createDocumentClient({
    endpoint: dynamoEndpoint,
    region,
    requestTimeoutMs: dynamoRequestTimeoutMs,
    connectionTimeoutMs: dynamoConnectionTimeoutMs,
  }));
}

export const getStore = (): Store =>
  (store ??= createStore(getDocumentClient(), getConfig().tableName, {
    researchSitePlaces: getConfig().researchSitePlaces,
  }));

/**
 * The sites and their keys alone, for the key check: a function that needs nothing else (the MCP
 * endpoints, whose other stores load with their server) does not load the whole Store at cold start.
 */
export const getSites = (): SiteStore => (sites ??= new SiteStore(getDocumentClient(), getConfig().tableName));

/** What the MCP endpoints' server reads and writes itself: the results it keeps, and the approval questions it asks. */
export const getMcpStores = () =>
  (mcpStores ??= {
    results: new ResultStore(getDocumentClient(), getConfig().tableName),
    elicitations: new ElicitationStore(getDocumentClient(), getConfig().tableName),
  });

/** The authorization server's state, for the oauth function. */
export const getOAuthStore = (): OAuthStore => (oauth ??= new OAuthStore(getDocumentClient(), getConfig().tableName));

/** Access tokens, as every function that serves a token's owner reads them. */
export const getAccessTokens = (): AccessTokenStore =>
  (accessTokens ??= new AccessTokenStore(getDocumentClient(), getConfig().tableName));

/** The providers' circuit breakers, for the functions that call a paid provider (not in Store: the others do not bundle it). */
export const getBreakers = (): BreakerStore =>
  (breakers ??= new BreakerStore(getDocumentClient(), getConfig().tableName));

/** The keyword data provider: DataForSEO with credentials (a secret's as read in the last few minutes), else the sandbox. */
export async function getKeywordData(): Promise<KeywordDataProvider> {
  return keywordDataFor(await dataforseoCredentials(getConfig().dataforseo), getConfig().dataforseo);
}

/** The SERP standard queue of rank checks: DataForSEO's with credentials, else the sandbox's. */
export async function getSerpQueue(): Promise<SerpTaskQueue> {
  return serpQueueFor(await dataforseoCredentials(getConfig().dataforseo), getConfig().dataforseo);
}

/** The backlink data provider: DataForSEO Backlinks with credentials, else the sandbox. */
export async function getBacklinkData(): Promise<BacklinkDataProvider> {
  return backlinkDataFor(await dataforseoCredentials(getConfig().dataforseo), getConfig().dataforseo);
}

/**
 * Search Console: Google's with the deployment's service account (SEARCH_CONSOLE_KEY, or the secret
 * SEARCH_CONSOLE_SECRET names, as read in the last few minutes), else the sandbox's.
 */
export async function getSearchConsole(): Promise<SearchConsoleProvider> {
  return searchConsoleFor(await searchConsoleKey(getConfig().searchConsole));
}

/** Forget the clients, so the next call reads the environment again (the local stack, tests). */
export function resetServices(): void {
  resetConfig();
  client = undefined;
  store = undefined;
  sites = undefined;
  mcpStores = undefined;
  breakers = undefined;
  oauth = undefined;
  accessTokens = undefined;
}
