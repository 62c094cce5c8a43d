import type {
  AddCompetitorResult,
  BudgetView,
  BudgetWindowView,
  DbSelectResult,
  PageList,
  RefreshEntry,
  RowOf,
  SearchConsoleView,
  SearchTrafficResult,
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

/** search_traffic's reply as the contract declares it; its lists' items are loose there, each with the figures of `totals` too. */
type SearchTrafficDeclared = Out<typeof SearchTrafficResult>;
/** Clicks, impressions, CTR and average position, of a window or of an item of a list. */
export type TrafficFigures = SearchTrafficDeclared['totals'];
export type TrafficPage = { url: string; queries: ({ query: string } & TrafficFigures)[] } & TrafficFigures;
export type TrafficQuery = {
  query: string;
  tracked: boolean;
  pages: ({ url: string } & TrafficFigures)[];
} & TrafficFigures;
export type KeywordCandidate = { query: string } & TrafficFigures;
/** A refresh queue entry: the stored entry with its status and, once republished, the day its measure is (or was) due. */
export type QueueEntry = RefreshEntry & {
  status: NonNullable<SearchTrafficDeclared['refresh_queue']>['entries'][number]['status'];
  measure_due_on: string | null;
};
/** search_traffic's reply with its items' figures, as the app's guard (isSearchTraffic) checks them. */
export type SearchTraffic = Omit<
  SearchTrafficDeclared,
  'pages' | 'queries' | 'keyword_candidates' | 'refresh_queue'
> & {
  pages: TrafficPage[];
  queries: TrafficQuery[];
  keyword_candidates: KeywordCandidate[];
  refresh_queue: { entries: QueueEntry[]; next_cursor: string | null } | null;
};

/** `GET /v1/search-console`: the site's connection (a site with none answers 404). */
export type SearchConsole = SearchConsoleView;
