export {
  GOOGLE_SEARCH_CONSOLE,
  googleSearchConsole,
  QUERY_SPACING_MS,
  SEARCH_ANALYTICS_QUERY,
  serviceAccountKey,
  type GoogleSearchConsoleOptions,
} from './search-console';
export type { ServiceAccountKey } from './responses.decoder';
