export { Meter, OutOfTime } from './meter';
export type { Hold, MeterOptions, PaidCall, PendingLedger, ProviderCall, ProviderGate, SpendGuard } from './meter';
export { ProviderError, UnknownOutcome, UrlRefused } from './errors';
export { WEB_RESEARCH } from './types';
export type {
  BacklinkDataProvider,
  BacklinkProfile,
  KeywordDataProvider,
  ResearchProvider,
  SearchConsoleContext,
  SearchConsoleProvider,
  SearchConsoleDay,
  SerpTask,
  SerpTaskQueue,
} from './types';
export { resolveAll } from './resolve';
export {
  GOOGLE_SEARCH_CONSOLE,
  googleSearchConsole,
  QUERY_SPACING_MS,
  SEARCH_ANALYTICS_QUERY,
  serviceAccountKey,
  type GoogleSearchConsoleOptions,
  type ServiceAccountKey,
} from './google';
export {
  SandboxKeywordData,
  SandboxBacklinkData,
  SandboxResearch,
  SandboxSerpQueue,
  SandboxSearchConsole,
  sandboxSearchRows,
  type SandboxSearchRow,
  SLIP_PLACES,
  sandboxHasNoData,
  sandboxReferringDomains,
} from './sandbox';
export {
  BACKLINK_ENDPOINTS,
  DataForSeoBacklinkData,
  DataForSeoKeywordData,
  DataForSeoSerpQueue,
  ENDPOINTS,
  SERP_QUEUE_ENDPOINTS,
  classify,
} from './dataforseo';
export {
  BULK_NUMBERS_ENDPOINTS,
  BULK_TARGETS,
  backlinkDetailPrice,
  backlinkLinksPrice,
  backlinkProfilePrice,
  backlinkTrendPrice,
  bulkNumbersPrice,
  dataForSeoPrice,
  dataForSeoTaskItems,
  keywordIdeasPrice,
  keywordMetricsPrice,
  linkGapPrice,
  monitorWorkPrice,
  monitoringMonthPrice,
  rankCheckPrice,
  serpPrice,
  webResearchPrice,
} from './prices';
export type { MonitorWork } from './prices';
