import type {
  AddCompetitorResult,
  BudgetView,
  BudgetWindowView,
  DbSelectResult,
  PageList,
  RowOf,
  SerpBacklinksResult,
  SerpKeywordRefreshResult,
  SerpLandscapeResult,
  UsageDayLine,
  UsageLine as UsageToolLine,
  UsageReport,
} from '@cm/contract';

/* The replies the app reads, typed from the contract's zod schemas (types only: nothing of the contract reaches the bundle). */

/** What a zod schema parses to, read from the schema's type without importing zod. */
type Out<S> = S extends { _zod: { output: infer O } } ? O : never;

export type Landscape = Out<typeof SerpLandscapeResult>;
export type LandscapeKeyword = Landscape['keywords'][number];
/** serp_landscape's rank history (history_days). */
export type RankHistory = NonNullable<Landscape['history']>;
/** The device of rank checks a history reads. */
export type Device = RankHistory['device'];
export type Backlinks = Out<typeof SerpBacklinksResult>;
export type BacklinksOverview = Extract<Backlinks, { depth: 'overview' }>;
export type BacklinkProfile = BacklinksOverview['profiles'][number];
export type HealthFlag = BacklinkProfile['health'][number];
export type Refresh = Out<typeof SerpKeywordRefreshResult>;
export type CompetitorAdded = Out<typeof AddCompetitorResult>;
export type Rows = Out<typeof DbSelectResult>;

/** The fields the app reads of the cm_* rows db_select answers with: the contract's stored rows (RowOf). */
export type CompetitorRow = Pick<RowOf<'cm_competitors'>, 'id' | 'domain' | 'display_name' | 'color' | 'added_at'>;
export type TopicRow = Pick<RowOf<'cm_topics'>, 'id' | 'name'>;
export type PageRow = Pick<RowOf<'cm_pages'>, 'id' | 'title'>;

/** A page of GET /articles or /questions (`suppressed_links` when asked for with `suppressed_links=true`), and one of its rows. */
export type PageListReply = Out<typeof PageList>;
export type PageListRow = PageListReply['items'][number];

export type UsageLine = UsageToolLine;
export type UsageDay = UsageDayLine;
/** `GET /v1/usage?by=day`: `by_day` is there because it was asked for. */
export type Usage = UsageReport;

/** `GET /v1/budget` and `PUT /v1/budget`: the site's daily and monthly windows. */
export type Budget = BudgetView;
export type BudgetWindow = BudgetWindowView;
