export { Bug } from './bug';
export { pageId, pageTypeOfId } from './ids';
export { isPrivateUseScheme, redirectTarget, redirectUriRefusal, redirectUriRegistered } from './redirect-uris';
export {
  articleDoc,
  contentHash,
  checkBodySiteId,
  outgoingLinks,
  isArticleDoc,
  pageBlocks,
  pageRecord,
  preparePublish,
  primaryKeywordWarnings,
  publishWarnings,
  questionDoc,
  readerRecord,
  scheduleReported,
  suppressedLinks,
} from './pages';
export {
  domainPath,
  homeUrl,
  pageUrl,
  questionsUrl,
  sectionSlug,
  sectionUrl,
  siteIconUrl,
  siteRoot,
} from './site-urls';
export {
  UNAVAILABLE,
  relatedShown,
  renderArticle,
  renderPage,
  feedContent,
  renderQuestion,
  renderUnavailable,
  renderedLinkTargets,
} from './render';
export type { PageSite, RenderOptions } from './render';
export { liveChanged, notifiedState, siteTime } from './notify';
export type { LiveState } from './notify';
export { minuteOf, schedulePublish, scheduledState } from './schedule';
export type { PageSchedule, ScheduledChange } from './schedule';
export { checkedWithoutData, keywordLocale, keywordScore, normalizeKeyword, splitSeeds, topByScore } from './keywords';
export { displayDomain, normalizeDomain } from './domains';
export { monthOf, monthStart, nextUtcMidnight, utcDay } from './time';
export { aiShareOfVoice, citationShare } from './ai-overviews';
export { ctrAt, landscapeMetrics, untrackedCompetitors } from './landscape';
export { ctrCurveOf, ctrOn, PUBLISHED_CTR_CURVE, visibilityOn } from './visibility';
export type { CtrCurve } from './visibility';
/** @public Read by test/unit/limits.test.ts through `require`, under a changed LIMITS. */
export { VERDICT_MIN_VOLUME_COVERAGE } from './landscape';
export type { ScopeKeyword } from './landscape';
export {
  CHECKS_PER_MONTH,
  daysEndingOn,
  isDue,
  isPageUrl,
  keywordCadence,
  monthlyUsd,
  pageUrlOn,
  rankHistory,
  rankRowOf,
} from './ranks';
export type { HistoryPage } from './ranks';
export {
  RECENT_RESEARCH_MS,
  SHARED_RESEARCH_MS,
  answeringResearch,
  normalizedResearchQuery,
  recallThreshold,
  researchJobQuery,
  researchTerms,
} from './research';
export { addressCounted, addressRange, addressRefusal, hostRefusal, isPublicAddress } from './addresses';
export {
  DETAIL_REFRESH,
  HEALTH_THRESHOLDS,
  brandOf,
  detailDue,
  extendTrend,
  healthFlags,
  isBrandAnchor,
  linksPerDomain,
  median,
  rankGap,
  trendWithin,
  velocity,
} from './backlinks';
export type { HealthInput } from './backlinks';
export { CRAWLABLE_PATHS, SITES_PREFIX, robotsTxt } from './robots';
export { BLOCK_TYPES, escapeHtml } from './blocks';
export { THEME_STYLE_SOURCE } from './theme';
export { PALETTES } from './palette';
export { SITE_ICON_SVG } from './icon';
export { pageCard } from './cards';
export { renderListing } from './listing-pages';
export { isPageBreak, NEWER_WALK, newerPageStart, pageLength } from './listing-breaks';
export {
  LISTINGS_SHARD,
  feedXml,
  inSitemap,
  listingEntries,
  monthRange,
  monthsBetween,
  pageEntries,
  siteRobotsTxt,
  sitemapIndexXml,
  sitemapShardOf,
  sitemapXml,
} from './site-files';
export type { ListingsRead } from './site-files';
export { warnedAlready, warningLevel, warningMark, warningPeriod } from './budget-warnings';
export { languageTags } from './language-tags';
export { changedForReaders, indexNowRequests, keyOfFile, ownHost, retryableAnswer, urlsOnHost } from './indexnow';
export type { IndexNowAnswer, IndexNowRequest } from './indexnow';
export {
  propertyName,
  searchBackfillDays,
  searchImportDay,
  searchConsoleToday,
  searchPlanDays,
  emptyDayIsFinal,
  tokenOfVerificationFile,
  verificationFile,
  verificationFileBody,
  verificationMetaTag,
} from './search-console';
export {
  pageOfUrl,
  searchDayOf,
  trackedDay,
  type SearchDayRows,
  type SearchPageRef,
  type SearchTotalRow,
} from './search-days';
export {
  dayAfter,
  daysHeld,
  deltaOf,
  figuresOver,
  NO_FIGURES,
  ownCtrByPosition,
  pagesOver,
  positionCountsOf,
  queriesAndPages,
  trafficWindows,
} from './search-traffic';
export type { DayWindow, PageSelection, PositionCounts } from './search-traffic';
export { decayCause, decayedPages, decayOf, flaggedEntry, recoveryOf } from './decay';
