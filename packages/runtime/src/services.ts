import { createDocumentClient, createStore, type Store } from '@cm/store';
import { loadConfig, type Config } from './config';

/* Clients are made once per Lambda container (cold start) and reused by every invocation. */

let cached: { config: Config; store: Store } | undefined;

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

/** Forget the clients, so the next call reads the environment again (the local stack, tests). */
export function resetServices(): void {
  cached = undefined;
}
