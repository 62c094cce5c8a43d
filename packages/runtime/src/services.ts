import type { KeywordDataProvider } from '@cm/providers';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { loadConfig, type Config } from './config';
import { selectKeywordData } from './providers';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

let cached: { config: Config; store: Store; keywordData?: Promise<KeywordDataProvider> } | undefined;

function services() {
  if (!cached) {
    const config = loadConfig();
    const db = createDocumentClient({ endpoint: config.dynamoEndpoint, region: config.region });
    cached = { config, store: createStore(db, config.tableName) };
  }
  return cached;
}

export const getStore = (): Store => services().store;
export const getConfig = (): Config => services().config;

/** The keyword data provider; its credentials are read once per container. */
export function getKeywordData(): Promise<KeywordDataProvider> {
  const s = services();
  s.keywordData ??= selectKeywordData(s.config.dataforseo, s.config.region).catch((error: unknown) => {
    s.keywordData = undefined; // a failed secret read is tried again on the next request
    throw error;
  });
  return s.keywordData;
}

/** Forget the clients, so the next call reads the environment again (the local stack, tests). */
export function resetServices(): void {
  cached = undefined;
}
