import type { BacklinkDataProvider, KeywordDataProvider } from '@cm/providers';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { getConfig, resetConfig } from './config';
import { backlinkDataFor, dataforseoCredentials, keywordDataFor } from './providers';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

let store: Store | undefined;

export function getStore(): Store {
  if (!store) {
    const { dynamoEndpoint, dynamoRequestTimeoutMs, region, tableName } = getConfig();
    store = createStore(
      createDocumentClient({ endpoint: dynamoEndpoint, region, requestTimeoutMs: dynamoRequestTimeoutMs }),
      tableName,
    );
  }
  return store;
}

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
  store = undefined;
}
