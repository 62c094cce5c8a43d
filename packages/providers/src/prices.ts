import { roundUsd } from '@cm/contract';

/*
 * List prices, one table per provider: what the budget reserves before a paid call (an upper bound of
 * the call's bill at its size) and what the sandbox charges with SANDBOX_LIST_PRICES=1. The bill
 * itself always comes from the provider's answer where it reports one.
 */

/**
 * DataForSEO, USD per live task: a base price plus a price per result item (or per extra SERP page).
 * SERP: https://dataforseo.com/update/organic-serp-api-pricing-changes-now-in-effect ($0.002 the first
 * page of 10 results, 0.75 × that each further page). Search volume, Labs and Backlinks: DataForSEO's
 * pricing page (https://dataforseo.com/pricing), not reachable from here; the figures below match the
 * `cost` of the recorded answers in test/fixtures/dataforseo ($0.075 per search-volume task;
 * Labs $0.01 + $0.0001 per item, search intent $0.001 + $0.0001 per item; Backlinks $0.02 + $0.00003 per row).
 */
export const DATAFORSEO_PRICES: Record<string, { task: number; perItem: number; itemsByDefault: number }> = {
  'keywords_data/google_ads/search_volume/live': { task: 0.075, perItem: 0, itemsByDefault: 0 },
  'dataforseo_labs/google/search_intent/live': { task: 0.001, perItem: 0.0001, itemsByDefault: 1000 },
  'dataforseo_labs/google/keyword_ideas/live': { task: 0.01, perItem: 0.0001, itemsByDefault: 700 },
  // perItem here is per further page of 10 results.
  'serp/google/organic/live/advanced': { task: 0.002, perItem: 0.0015, itemsByDefault: 0 },
  // The standard queue (normal priority): $0.0006 the first page, 0.75 × that each further page
  // (https://dataforseo.com/pricing/serp/google-organic-serp-api); collecting a task (task_get) is free.
  'serp/google/organic/task_post': { task: 0.0006, perItem: 0.00045, itemsByDefault: 0 },
  'backlinks/summary/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 1 },
  // Monthly points: at most 36 months back and the current one.
  'backlinks/timeseries_summary/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 37 },
  'backlinks/anchors/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  'backlinks/backlinks/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  'backlinks/referring_domains/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  'backlinks/domain_intersection/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  // The bulk endpoints: one task of up to 1000 targets (at most 100 main domains), $0.02 a request and
  // $0.00003 a row (https://dataforseo.com/update/bulk-pages-summary-in-backlinks-api; the cost of the
  // docs' sample answers: $0.02006 for 2 targets, $0.0203 for 10).
  'backlinks/bulk_pages_summary/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  'backlinks/bulk_new_lost_backlinks/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
  'backlinks/bulk_new_lost_referring_domains/live': { task: 0.02, perItem: 0.00003, itemsByDefault: 100 },
};
/** An endpoint missing from the table is reserved at the dearest task the table knows (with 1000 rows), never at nothing. */
const DATAFORSEO_UNKNOWN = { task: 0.075, perItem: 0.00003, itemsByDefault: 1000 };

/** SERP results per page, billed page by page. */
const SERP_PAGE = 10;

/**
 * The list price of one DataForSEO task: `items` result rows (SERP: the depth asked for), or the
 * endpoint's default size; the most the task can bill when `items` is what it asks for.
 */
export function dataForSeoPrice(endpoint: string, items?: number): number {
  const price = DATAFORSEO_PRICES[endpoint] ?? DATAFORSEO_UNKNOWN;
  const size = items ?? price.itemsByDefault;
  if (endpoint.startsWith('serp/'))
    return roundUsd(price.task + price.perItem * Math.max(0, Math.ceil(size / SERP_PAGE) - 1));
  return roundUsd(price.task + price.perItem * size);
}

/** The rows a DataForSEO task can bill for, read from the task as sent: what the list price of {@link dataForSeoPrice} is for. */
export function dataForSeoTaskItems(endpoint: string, task: Record<string, unknown>): number | undefined {
  if (typeof task.depth === 'number') return task.depth;
  if (Array.isArray(task.targets)) return task.targets.length;
  if (typeof task.limit === 'number') return task.limit;
  if (endpoint.includes('search_intent') && Array.isArray(task.keywords)) return task.keywords.length;
  return undefined;
}

/** Tavily: pay-as-you-go credits, https://docs.tavily.com/documentation/api-credits ($0.008 a credit; a basic search 1 credit, advanced 2). */
export const TAVILY_PRICES = {
  usdPerCredit: 0.008,
  searchCredits: { basic: 1, advanced: 2 },
} as const;

/** USD per million tokens. */
export interface TokenPrice {
  input: number;
  output: number;
}

/** A model's on-demand price; `regional` for Claude 4.5 and later, whose regional endpoints cost more than `global.`. */
interface ModelPrice extends TokenPrice {
  regional?: true;
}

/**
 * On-demand list prices of Claude models on Bedrock (USD per million tokens), which are Anthropic's own
 * (https://aws.amazon.com/bedrock/pricing/). From Claude 4.5 on, a regional endpoint (a geographic
 * inference profile such as `us.`, or the model in one region) costs 10% more than the `global.`
 * profile; earlier models have one price wherever they run.
 */
const BEDROCK_PRICES: Record<string, ModelPrice> = {
  'anthropic.claude-3-haiku-20240307-v1:0': { input: 0.25, output: 1.25 },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { input: 0.8, output: 4 },
  'anthropic.claude-3-5-sonnet-20240620-v1:0': { input: 3, output: 15 },
  'anthropic.claude-3-5-sonnet-20241022-v2:0': { input: 3, output: 15 },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': { input: 3, output: 15 },
  'anthropic.claude-sonnet-4-20250514-v1:0': { input: 3, output: 15 },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { input: 1, output: 5, regional: true },
};
const REGIONAL_PREMIUM = 1.1;
/** An unknown model is priced as the dearest known one, so neither the ledger nor a reservation understates a cost. */
export const BEDROCK_HIGHEST: TokenPrice = {
  input: Math.max(...Object.values(BEDROCK_PRICES).map((p) => p.input * (p.regional ? REGIONAL_PREMIUM : 1))),
  output: Math.max(...Object.values(BEDROCK_PRICES).map((p) => p.output * (p.regional ? REGIONAL_PREMIUM : 1))),
};

/** The price of a model id or inference profile id (`us.anthropic…`, `global.anthropic…`); undefined when the table does not know it. */
export function bedrockPrice(modelId: string): TokenPrice | undefined {
  const [, scope, model] = /^(?:([a-z-]+)\.)?(anthropic\..+)$/.exec(modelId) ?? [];
  const price = model === undefined ? undefined : BEDROCK_PRICES[model];
  if (!price) return undefined;
  const factor = price.regional && scope !== 'global' ? REGIONAL_PREMIUM : 1;
  return { input: roundUsd(price.input * factor), output: roundUsd(price.output * factor) };
}

/** What a model's calls are charged and reserved at: its price, or the dearest known one. */
export const bedrockPriceOrHighest = (modelId: string): TokenPrice => bedrockPrice(modelId) ?? BEDROCK_HIGHEST;

/**
 * The most a synthesis asks for: its prompt has at most 30,000 characters of sources plus the
 * instructions and tool schema (under 12,000 tokens, counting a token as 3 characters), and its answer
 * is capped at `maxTokens` (4096).
 */
export const SYNTHESIS_MAX_TOKENS = { input: 12_000, output: 4096 } as const;

export const bedrockCost = (price: TokenPrice, tokens: { input: number; output: number }): number =>
  roundUsd((tokens.input * price.input + tokens.output * price.output) / 1e6);

/** The list price of one web research (a search unless it reads a URL, then one synthesis at most tokens). */
export function webResearchPrice(mode: string, modelId: string): number {
  const search = mode === 'url' ? 0 : TAVILY_PRICES.searchCredits.basic * TAVILY_PRICES.usdPerCredit;
  return roundUsd(search + bedrockCost(bedrockPriceOrHighest(modelId), SYNTHESIS_MAX_TOKENS));
}

/**
 * Targets of one bulk request of a domain's daily numbers: DataForSEO takes 1000 targets but at most 100
 * main domains a request, and every monitored domain is a main domain of its own.
 */
export const BULK_TARGETS = 100;
/** Gap rows the site's own detail asks for (the monitor's GAP_LIMIT). */
const GAP_ROWS = 100;
/** The three bulk requests of the daily numbers: the summary (rank, backlinks, referring domains, spam score), new and lost backlinks, new and lost referring domains. */
export const BULK_NUMBERS_ENDPOINTS = [
  'backlinks/bulk_pages_summary/live',
  'backlinks/bulk_new_lost_backlinks/live',
  'backlinks/bulk_new_lost_referring_domains/live',
] as const;
/** The daily numbers of `rows` domains (at most BULK_TARGETS): the three bulk requests of that many rows. */
export const bulkNumbersPrice = (rows: number): number =>
  roundUsd(BULK_NUMBERS_ENDPOINTS.reduce((sum, endpoint) => sum + dataForSeoPrice(endpoint, rows), 0));
/** A domain's monthly trend, taken once when its monitoring starts: one timeseries task. */
export const backlinkTrendPrice = (): number => dataForSeoPrice('backlinks/timeseries_summary/live');
/** A domain's detail: its top 20 anchors, top 20 linking pages and top 100 referring domains. */
export const backlinkDetailPrice = (): number =>
  roundUsd(
    dataForSeoPrice('backlinks/anchors/live', 20) +
      dataForSeoPrice('backlinks/backlinks/live', 20) +
      dataForSeoPrice('backlinks/referring_domains/live', 100),
  );
/** A domain's whole profile looked up live (five Backlinks tasks at the sizes taken): its summary, trend and detail. */
export const backlinkProfilePrice = (): number =>
  roundUsd(dataForSeoPrice('backlinks/summary/live') + backlinkTrendPrice() + backlinkDetailPrice());
export const linkGapPrice = (rows: number): number => dataForSeoPrice('backlinks/domain_intersection/live', rows);

/*
 * The list price of each operation a tool asks of a provider, as a tool's estimate lists it (named as
 * the sandbox's ledger names it): what the meter reserves before the call at the size asked for.
 */

/** Keyword metrics of `keywords` keywords: a search-volume task, then search intent of as many. */
export const keywordMetricsPrice = (keywords: number): number =>
  roundUsd(
    dataForSeoPrice('keywords_data/google_ads/search_volume/live') +
      dataForSeoPrice('dataforseo_labs/google/search_intent/live', keywords),
  );
/** Up to `limit` keyword ideas. */
export const keywordIdeasPrice = (limit: number): number =>
  dataForSeoPrice('dataforseo_labs/google/keyword_ideas/live', limit);
/** One organic SERP of `depth` results. */
export const serpPrice = (depth: number): number => dataForSeoPrice('serp/google/organic/live/advanced', depth);
/** One rank check: an organic SERP of `depth` results on the standard queue. */
export const rankCheckPrice = (depth: number): number => dataForSeoPrice('serp/google/organic/task_post', depth);
/** Up to `rows` linking pages of a domain. */
export const backlinkLinksPrice = (rows: number): number => dataForSeoPrice('backlinks/backlinks/live', rows);

/** What a monitoring run may pay for, counted. */
export interface MonitorWork {
  /** Domains whose daily numbers it fetches itself (one batch of bulk requests of that many rows). */
  numbers: number;
  trends: number;
  details: number;
  gaps: number;
}
/** The list price of a monitoring run's work: the most it can be billed. */
export const monitorWorkPrice = (work: MonitorWork): number =>
  roundUsd(
    (work.numbers > 0 ? bulkNumbersPrice(work.numbers) : 0) +
      work.trends * backlinkTrendPrice() +
      work.details * backlinkDetailPrice() +
      work.gaps * linkGapPrice(GAP_ROWS),
  );

/** Days in the month monitoring is priced over. */
const MONTH_DAYS = 30;
/** The detail's weekly cap: at most one a week. */
const DETAIL_EVERY_DAYS = 7;
/**
 * Details a month at the typical rate: one. The detail is taken again only when the daily numbers moved
 * past the threshold (core's DETAIL_REFRESH) and a week has passed; a domain that moves that much every
 * week is rare, so a month typically sees the first of its detail and no more.
 */
const DETAILS_A_MONTH_TYPICAL = 1;

/**
 * What monitoring one domain costs a month at list prices: its share of full bulk requests for the daily
 * numbers (BULK_TARGETS rows a request) every day, and its detail (for the site, with its link gap) at
 * the typical rate (`usd`) or at its weekly cap (`at_most_usd`). The trend's one range call when the
 * domain starts being monitored is paid once, not monthly.
 */
export function monitoringMonthPrice(kind: 'site' | 'competitor'): { usd: number; at_most_usd: number } {
  const numbers = (MONTH_DAYS * bulkNumbersPrice(BULK_TARGETS)) / BULK_TARGETS;
  const detail = backlinkDetailPrice() + (kind === 'site' ? linkGapPrice(GAP_ROWS) : 0);
  return {
    usd: roundUsd(numbers + DETAILS_A_MONTH_TYPICAL * detail),
    at_most_usd: roundUsd(numbers + Math.ceil(MONTH_DAYS / DETAIL_EVERY_DAYS) * detail),
  };
}
