import type { BacklinkDataProvider, KeywordDataProvider } from '@cm/providers';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { getConfig, resetConfig } from './config';
import { backlinkDataFor, dataforseoCredentials, keywordDataFor, type DataForSeoCredentials } from './providers';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

let cached: { store: Store; credentials?: Promise<DataForSeoCredentials | null> } | undefined;

function services() {
  if (!cached) {
    const { dynamoEndpoint, region, tableName } = getConfig();
    cached = { store: createStore(createDocumentClient({ endpoint: dynamoEndpoint, region }), tableName) };
  }
  return cached;
}

export const getStore = (): Store => services().store;

/** DataForSEO's credentials, read once per container; a failed secret read is tried again on the next request. */
function credentials(): Promise<DataForSeoCredentials | null> {
  const s = services();
  s.credentials ??= dataforseoCredentials(getConfig().dataforseo, getConfig().region).catch((error: unknown) => {
    s.credentials = undefined;
    throw error;
  });
  return s.credentials;
}

/** The keyword data provider: DataForSEO with credentials, else the sandbox. */
export async function getKeywordData(): Promise<KeywordDataProvider> {
  return keywordDataFor(await credentials(), getConfig().dataforseo.baseUrl);
}

/** The backlink data provider: DataForSEO Backlinks with credentials, else the sandbox. */
export async function getBacklinkData(): Promise<BacklinkDataProvider> {
  return backlinkDataFor(await credentials(), getConfig().dataforseo.baseUrl);
}

/** Forget the clients, so the next call reads the environment again (the local stack, tests). */
export function resetServices(): void {
  resetConfig();
  cached = undefined;
}
