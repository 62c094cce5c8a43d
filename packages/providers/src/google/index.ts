export {
  GOOGLE_SEARCH_CONSOLE,
  googleSearchConsole,
  SEARCH_ANALYTICS_QUERY,
  serviceAccountKey,
  type GoogleSearchConsoleOptions,
} from './search-console';
export type { ServiceAccountKey } from './responses.decoder';
