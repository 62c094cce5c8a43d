/*
 * Every limit of the research tools, once. The checks, the error bodies and the descriptions callers
 * read (tool descriptions, parameter descriptions, JSON Schema minimum/maximum/default) all take their
 * numbers from here, so changing one changes it everywhere.
 *
 * SPEC_LIMITS are the numbers the interface spec fixes, each with the section it comes from
 * (§4.3 research tools, §7 errors, §8 limits). SERVICE_LIMITS are numbers this service chooses where
 * the spec is silent.
 */

/** The numbers the spec fixes. */
export const SPEC_LIMITS = {
  /** spec §4.3 research, §7, §8: web, url and reddit research calls in flight, globally (error body `max_concurrent`). */
  concurrentResearch: 10,
  /** spec §7, §8: the retry hint of concurrency_limit_exceeded (`retry_after_ms`; the Retry-After header is it in seconds). */
  researchRetryAfterMs: 30_000,
  /** spec §8: how long a web, url or reddit research takes, in seconds (described to callers, not enforced). */
  researchSecondsMin: 30,
  researchSecondsMax: 60,
  /** spec §4.3 serp_landscape, §8: how long an analyze call blocks, about, in seconds (not enforced). */
  analyzeSecondsMin: 45,
  analyzeSecondsMax: 60,

  /** spec §4.3 research, §8: keywords mode takes 3 to 5 comma-separated seeds ... */
  keywordSeedsMin: 3,
  keywordSeedsMax: 5,
  /** ... each of 1 to 3 words. */
  keywordSeedWordsMin: 1,
  keywordSeedWordsMax: 3,

  /** spec §4.3 serp_landscape, §8: keywords one analyze call researches, at most and by default. */
  analyzeKeywords: 5,
  /** spec §4.3 serp_landscape, §8: keywords a topic list fetches by default (top N by score). */
  topicListDefault: 10,
  /** spec §4.3 serp_landscape, §8: keyword ideas one metrics call with ideas: true pulls, at most. */
  keywordIdeas: 100,
  /** spec §4.3 serp_landscape, §8: the SOV verdict is suppressed below this share of keywords with volume. */
  verdictMinVolumeCoverage: 0.5,

  /** spec §4.3 serp_keyword_refresh, §8: refreshes per site per (UTC) day. */
  refreshesPerDay: 20,
  /** spec §4.3 serp_keyword_refresh, §8: organic results a SERP pull takes, top N (list pulls the same depth). */
  serpDepth: 20,
  /** spec §4.3 serp_keyword_refresh rule 4: untracked competitors are the domains of the top N. */
  untrackedCompetitorPositions: 10,

  /** spec §4.3 serp_backlinks, §8: months of backlink trend, by default and at most. */
  trendMonthsDefault: 18,
  trendMonthsMax: 36,
  /** spec §4.3 serp_backlinks, §8: linking pages of depth links, by default and at most. */
  linksDefault: 100,
  linksMax: 1000,
  /** spec §8: the authority score of a linking page ranges over 0 to 1000 (ranks use the same scale). */
  authorityMin: 0,
  authorityMax: 1000,

  /** spec §4.3 add_competitor, §8: active competitors per site (error body `max_active`). */
  activeCompetitors: 10,
} as const;

/** Limits this service adds where the spec is silent. */
export const SERVICE_LIMITS = {
  /**
   * Of the spec's 10 web, url and reddit research places, the most one site holds at once (a deployment
   * may set another, RESEARCH_SITE_PLACES): a site's burst leaves the rest to the others, and one
   * analyze (5 keywords) still researches all its keywords at once.
   */
  researchSitePlaces: 5,
  /** How long a call may wait for its research job, in ms: inside API Gateway's 30 s. */
  waitMsMax: 25_000,
  /** serp_landscape topic list/analyze: the most `limit` and `keyword_ids` take. */
  listKeywordsMax: 100,
  /** get_keywords: the most seeds one call takes. */
  seedsMax: 200,
  /**
   * get_keywords: a keyword checked with no data is not fetched (nor paid for) again for this many days;
   * Google Ads volumes are monthly, so after a month the data may have some.
   */
  noDataRecheckDays: 30,
  /** db_select: rows per page, by default and at most. */
  dbSelectDefault: 50,
  dbSelectMax: 200,
  /** recall: results, by default and at most. */
  recallDefault: 10,
  recallMax: 50,
  /** A SERP summary's `top_domains`: the domains of the top N results. */
  serpTopDomains: 10,
  /** A request body, in bytes, on every route but the publishes (routes.ts gives those theirs). */
  requestBodyBytes: 1024 * 1024,
  /**
   * What one Lambda invocation carries each way (AWS's 6 MB synchronous payload limit), less room for the
   * reply's own fields and headers: a stored page's read reply and visitor page must fit it once escaped.
   */
  lambdaReplyBytes: 6 * 1024 * 1024 - 64 * 1024,
  /** Levels of arrays and objects a JSON body may nest (the body itself is the first): deeper input would exhaust the stack of whatever walks it. */
  jsonDepthMax: 64,
  /**
   * A visitor page may be served from a cache (the CDN's, a browser's) for this many seconds, then
   * revalidated (ETag): a publish, notify or relink reaches readers within a minute, while a popular page
   * costs one Lambda call a minute at each CDN edge that serves it.
   */
  visitorMaxAgeSeconds: 60,
  /**
   * The most topics of one question whose topic pages list it: each is an item its publish writes, so a
   * question naming thousands costs no more than this (publish warns of the rest).
   */
  topicsListedMax: 20,
  /**
   * An article's `category` and each of a question's `topics`, in characters (UTF-16 code units, as
   * JavaScript counts): each names a section whose slug is in the table's keys, at most 4 bytes a
   * character once slugged, so 200 keep a section's sort key (`SECTION#topic#<slug>`) within
   * DynamoDB's 1024 bytes.
   */
  sectionNameMax: 200,
  /**
   * Old slugs that redirect to one page (docs/api/publishing.md#renaming-a-page): a rename past them is
   * 409 redirect_limit_reached until one is removed, so the page item's list of them stays small.
   */
  redirectsPerPage: 100,
  /** Cards on one page of a site's home, category, topic or question index (its first page: at least). */
  listingPageSize: 20,
  /** Cards on one page of a listing at most (a later page ends at a card marked by its place: core/listing-breaks.ts). */
  listingPageMax: 60,
  /** URLs in one sitemap (sitemaps.org's limit); a month with more is split into its days. */
  sitemapUrlsMax: 50_000,
  /** Entries of a site's feed: its latest articles and questions. */
  feedEntries: 20,
  /** URLs in one IndexNow request (the protocol's limit); a site with more pending sends several. */
  indexNowUrlsPerRequest: 10_000,
  /**
   * How long a changed URL waits before it is sent to IndexNow, in seconds: further changes of it (and
   * of the site's other URLs) within it go in the same request (INDEXNOW_DELAY_SECONDS sets another).
   */
  indexNowDelaySeconds: 30,
  /**
   * The rendered bodies one feed carries, in bytes: entries past it carry their summary only, so that
   * twenty long pages keep the feed well within a Lambda reply (lambdaReplyBytes) and a reader's patience.
   */
  feedContentBytes: 1024 * 1024,
  /**
   * How long a function keeps a provider secret it read, in seconds: a rotated DataForSEO or Tavily secret
   * reaches warm functions within five minutes, at one Secrets Manager call per secret and container per five minutes.
   */
  secretMaxAgeSeconds: 300,
  /** 503 service_unavailable (the table cannot be reached): when to try again, in ms (`retry_after_ms`; the Retry-After header is it in seconds). */
  unavailableRetryAfterMs: 5_000,
  /** A pending research job: when to ask again (get_job, GET /v1/jobs/{job_id}), in ms. */
  jobRetryAfterMs: 5_000,
  /** MCP: a tool result's JSON above this many bytes is paged or cut (MCP_RESULT_MAX_BYTES overrides it). */
  mcpResultBytes: 80 * 1024,
  /** MCP find_pages: pages per call, by default and at most; listing entries one call looks through. */
  findPagesDefault: 20,
  findPagesMax: 50,
  findPagesScan: 200,
  /** A site's daily or monthly budget, at most, in USD (PUT /v1/budget). */
  budgetUsdMax: 1_000_000,
  /** How long a paid call's hold lasts before another call may drop it: past any route's time limit, so only a dead call loses it. */
  budgetHoldMs: 5 * 60_000,
  /** How long queued work's hold (a research job, a monitoring run) lasts: past the queues' retries. */
  queuedBudgetHoldMs: 6 * 60 * 60_000,
  /** track_rankings: a topic's committed keywords tracked, the top N by score, by default and at most. */
  trackKeywordsDefault: 50,
  trackKeywordsMax: 500,
  /** Rank tracking's SERP depth, a site setting: by default (the spec's top 20), at most, and in steps of a SERP page (billed page by page). */
  rankDepthDefault: SPEC_LIMITS.serpDepth,
  rankDepthMax: 100,
  rankDepthStep: 10,
  /** serp_landscape history_days: the most days of rank history one call reads. */
  historyDaysMax: 365,
  /** serp_landscape history: the most keywords of a scope it covers (the top by score); the rest are named. */
  historyKeywordsMax: 100,
  /** Dated rank rows are kept this long, as ledger lines are; then TTL deletes them. */
  rankRowsKeptDays: 400,
  /** A rank check's AI Overview: the references kept (in the order Google lists them), and the longest URL kept of one. */
  aiOverviewReferencesMax: 20,
  aiOverviewUrlMax: 1024,
  /**
   * A page's revisions (the versions publishes replaced): the newest this many are kept, each at most this
   * many days (TTL deletes it then); a publish that keeps one deletes the oldest past the count.
   */
  revisionsKept: 25,
  revisionsKeptDays: 90,
  /** GET /articles/{id}/revisions (and list_revisions): revisions per page, by default and at most. */
  revisionsPageDefault: 20,
  revisionsPageMax: 100,
  /** A page's `publish_at` and `unpublish_at`: at most this many days ahead of the publish that sets them. */
  scheduleAheadDaysMax: 365,
  /**
   * The page schedule sweep (every minute): the scheduled changes one run applies at most, and the minutes
   * behind it one run catches up at most; the rest wait for the next run, a minute later.
   */
  scheduleSweepChangesMax: 500,
  scheduleSweepMinutesMax: 60,
  /**
   * A site's Search Console day (docs/api/search-console.md): the pages, queries and (page, query) pairs
   * it keeps (the most impressions first; the rest count in its totals), the countries kept, and how
   * many days a day is kept (TTL deletes it then).
   */
  searchDayPages: 1000,
  searchDayQueries: 1000,
  searchDayPairs: 2000,
  searchDayCountries: 20,
  searchDaysKept: 400,
  /**
   * search_traffic (docs/api/tracking-tools.md#search_traffic): its pages, the queries of each page and
   * the pages of each query, and its keyword candidates, by default and at most; the refresh queue's
   * entries a call lists, by default and at most.
   */
  trafficPagesDefault: 10,
  trafficPagesMax: 50,
  trafficQueriesDefault: 10,
  trafficQueriesMax: 50,
  trafficCandidatesDefault: 20,
  trafficCandidatesMax: 100,
  /**
   * search_traffic's cannibalisation (docs/api/tracking-tools.md#search_traffic): a query is listed when two
   * or more of the site's pages each hold at least this share of its impressions over the window; at most
   * this many queries.
   */
  trafficCannibalisationShare: 0.2,
  trafficCannibalisationMax: 20,
  refreshQueueDefault: 20,
  refreshQueueMax: 100,
  /**
   * Decay (docs/api/decisions.md#decay): a page is flagged when its clicks over 28 days fell by at least
   * decayDropShare against the 28 days before, from at least decayClicksMin clicks; a republished page is
   * recovered when its 28 days after reach decayRecoveredShare of its clicks before the drop. A window is
   * judged when it holds at least decayDaysMin of its days, its figures scaled to 28 days.
   */
  decayWindowDays: 28,
  decayDaysMin: 24,
  decayDropShare: 0.2,
  decayClicksMin: 20,
  decayRecoveredShare: 0.8,
  /** A site's own CTR at a position counts from this many impressions at it over 28 days; below, the published curve's. */
  ownCtrImpressionsMin: 100,
} as const;

/** Every limit, the spec's and the service's. */
export const LIMITS = { ...SPEC_LIMITS, ...SERVICE_LIMITS } as const;
