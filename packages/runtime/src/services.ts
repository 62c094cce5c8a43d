import type { BacklinkDataProvider, KeywordDataProvider } from '@cm/providers';
import { createDocumentClient, createStore, ElicitationStore, type Store } from '@cm/store';
import { getConfig, resetConfig } from './config';
import { backlinkDataFor, dataforseoCredentials, keywordDataFor } from './providers';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

type DocumentClient = ReturnType<typeof createDocumentClient>;

let client: DocumentClient | undefined;
let store: Store | undefined;
let elicitations: ElicitationStore | undefined;

function documentClient(): DocumentClient {
  const { dynamoEndpoint, dynamoRequestTimeoutMs, region } = getConfig();
  return (client ??= createDocumentClient({
    endpoint: dynamoEndpoint,
    region,
    requestTimeoutMs: dynamoRequestTimeoutMs,
  }));
}

export const getStore = (): Store => (store ??= createStore(documentClient(), getConfig().tableName));

/** The MCP endpoints' approval questions, on the same client: apart from the Store, so only their bundles carry it. */
export const getElicitations = (): ElicitationStore =>
  (elicitations ??= new ElicitationStore(documentClient(), getConfig().tableName));

/** The keyword data provider: DataForSEO with credentials (a secret's as read in the last few minutes), else the sandbox. */
export async function getKeywordData(): Promise<KeywordDataProvider> {
  return keywordDataFor(await dataforseoCredentials(getConfig().dataforseo), getConfig().dataforseo.baseUrl);
}

/** The backlink data provider: DataForSEO Backlinks with credentials, else the sandbox. */
export async function getBacklinkData(): Promise<BacklinkDataProvider> {
  return backlinkDataFor(await dataforseoCredentials(getConfig().dataforseo), getConfig().dataforseo.baseUrl);
}

/** Forget the clients, so the next call reads the environment again (the local stack, tests). */
export function resetServices(): void {
  resetConfig();
  client = undefined;
  store = undefined;
  elicitations = undefined;
}
