import type {
  Backlinks,
  Budget,
  CompetitorAdded,
  CompetitorRow,
  Landscape,
  PageListReply,
  PageRow,
  Refresh,
  Rows,
  SearchConsole,
  SearchTraffic,
  TopicRow,
  Usage,
} from './types';

/*
 * What the app checks of a reply before a view reads it. The replies are the contract's schemas, which
 * the app's types are read from, so a guard checks the fields that make a reply the one asked for rather
 * than every field (the bundle stays small, with no schema library): a reply from anything else, a
 * proxy's page or another version of the API, is then an error in words, not a view that breaks halfway.
 */

export const isFields = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isTextOrNull = (value: unknown) => value === null || typeof value === 'string';
const isNumberOrNull = (value: unknown) => value === null || typeof value === 'number';

export const isTopicRow = (row: unknown): row is TopicRow =>
  isFields(row) && typeof row.id === 'number' && typeof row.name === 'string';
export const isPageRow = (row: unknown): row is PageRow =>
  isFields(row) && typeof row.id === 'number' && typeof row.title === 'string';
export const isCompetitorRow = (row: unknown): row is CompetitorRow =>
  isFields(row) &&
  typeof row.id === 'number' &&
  typeof row.domain === 'string' &&
  typeof row.added_at === 'string' &&
  (row.display_name === undefined || typeof row.display_name === 'string') &&
  (row.color === undefined || typeof row.color === 'string');

/** A page of db_select; its rows are checked one by one, with the guard of the table's rows. */
export const isRows = (reply: unknown): reply is Rows =>
  isFields(reply) && Array.isArray(reply.rows) && isTextOrNull(reply.next_cursor);

const areLists = (fields: Record<string, unknown>, lists: readonly string[]) =>
  lists.every((list) => Array.isArray(fields[list]));

/** serp_landscape's rank history (history_days): its days, coverage and every list it draws, its AI Overviews' too. */
const isRankHistory = (history: unknown): boolean =>
  isFields(history) &&
  isFields(history.coverage) &&
  areLists(history, [
    'days',
    'keywords',
    'visibility',
    'winners',
    'losers',
    'domains_up',
    'domains_down',
    'pages',
    'cannibalisation',
  ]) &&
  isFields(history.ai_overviews) &&
  areLists(history.ai_overviews, ['shown', 'keywords', 'domains']);

export const isLandscape = (reply: unknown): reply is Landscape =>
  isFields(reply) &&
  isFields(reply.scope) &&
  isFields(reply.coverage) &&
  Array.isArray(reply.keywords) &&
  isFields(reply.sov) &&
  Array.isArray(reply.sov.domains) &&
  (reply.history === undefined || isRankHistory(reply.history));

export const isRefresh = (reply: unknown): reply is Refresh =>
  isFields(reply) && isFields(reply.row) && Array.isArray(reply.row.items) && isFields(reply.quota);

/** serp_backlinks at depth overview: the profiles, or `{empty: true}` before any. */
export const isBacklinks = (reply: unknown): reply is Backlinks =>
  isFields(reply) &&
  (reply.empty === true ||
    (reply.depth === 'overview' &&
      Array.isArray(reply.profiles) &&
      Array.isArray(reply.trend) &&
      Array.isArray(reply.gap)));

export const isCompetitorAdded = (reply: unknown): reply is CompetitorAdded =>
  isFields(reply) &&
  isCompetitorRow(reply.competitor) &&
  typeof reply.created === 'boolean' &&
  typeof reply.completed === 'boolean' &&
  typeof reply.monitoring_deferred === 'number';

export const isDeleted = (reply: unknown): reply is { deleted: true } => isFields(reply) && reply.deleted === true;

export const isPageListReply = (reply: unknown): reply is PageListReply =>
  isFields(reply) && Array.isArray(reply.items) && isTextOrNull(reply.next_cursor);

export const isUsage = (reply: unknown): reply is Usage =>
  isFields(reply) &&
  typeof reply.calls === 'number' &&
  typeof reply.cost_usd === 'number' &&
  Array.isArray(reply.by_tool) &&
  (reply.by_day === undefined || Array.isArray(reply.by_day));

const isBudgetWindow = (window: unknown) =>
  isFields(window) &&
  isNumberOrNull(window.limit_usd) &&
  typeof window.spent_usd === 'number' &&
  typeof window.reserved_usd === 'number';

export const isBudget = (reply: unknown): reply is Budget =>
  isFields(reply) && isBudgetWindow(reply.daily) && isBudgetWindow(reply.monthly);

/** Figures as search_traffic gives them: whole clicks and impressions, CTR and position null without impressions. */
const isFigures = (value: unknown): boolean =>
  isFields(value) &&
  typeof value.clicks === 'number' &&
  typeof value.impressions === 'number' &&
  isNumberOrNull(value.ctr) &&
  isNumberOrNull(value.position);

/** Every item of a list has figures, and the nested list of `nested` is one of items with figures. */
const areFigures = (list: unknown, nested?: string): boolean =>
  Array.isArray(list) &&
  list.every(
    (item: unknown) => isFigures(item) && (nested === undefined || (isFields(item) && areFigures(item[nested]))),
  );

const isQueueEntry = (entry: unknown): boolean =>
  isFields(entry) &&
  isFields(entry.page) &&
  typeof entry.url === 'string' &&
  typeof entry.cause === 'string' &&
  typeof entry.status === 'string' &&
  typeof entry.clicks_before === 'number' &&
  typeof entry.clicks_now === 'number' &&
  typeof entry.clicks_at_risk === 'number';

/** search_traffic: the windows' figures and deltas, the lists with their figures (loose in the contract), the queue. */
export const isSearchTraffic = (reply: unknown): reply is SearchTraffic =>
  isFields(reply) &&
  typeof reply.connected === 'boolean' &&
  isFields(reply.scope) &&
  isFigures(reply.totals) &&
  isFigures(reply.previous_totals) &&
  isFields(reply.deltas) &&
  areFigures(reply.pages, 'queries') &&
  areFigures(reply.queries, 'pages') &&
  areFigures(reply.keyword_candidates) &&
  (reply.refresh_queue === null ||
    (isFields(reply.refresh_queue) &&
      Array.isArray(reply.refresh_queue.entries) &&
      reply.refresh_queue.entries.every(isQueueEntry)));

export const isSearchConsole = (reply: unknown): reply is SearchConsole =>
  isFields(reply) && typeof reply.property === 'string' && typeof reply.status === 'string';
