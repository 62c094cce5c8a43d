import type {
  AddCompetitorResult,
  BudgetView,
  BudgetWindowView,
  DbSelectResult,
  PageList,
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
export type Backlinks = Out<typeof SerpBacklinksResult>;
export type BacklinksOverview = Extract<Backlinks, { depth: 'overview' }>;
export type BacklinkProfile = BacklinksOverview['profiles'][number];
export type HealthFlag = BacklinkProfile['health'][number];
export type Refresh = Out<typeof SerpKeywordRefreshResult>;
export type CompetitorAdded = Out<typeof AddCompetitorResult>;
export type Rows = Out<typeof DbSelectResult>;

export interface CompetitorRow {
  id: number;
  domain: string;
  display_name?: string | null;
  color?: string | null;
  added_at: string;
}
export interface TopicRow {
  id: number;
  name: string;
}
export interface PageRow {
  id: number;
  title: string;
}

/** A listed page (`suppressed_links` when the listing is asked for them with `suppressed_links=true`). */
export type PageListing = Out<typeof PageList>;
export type PageItem = PageListing['items'][number];

export type UsageLine = UsageToolLine;
export type UsageDay = UsageDayLine;
/** `GET /v1/usage?by=day`: `by_day` is there because it was asked for. */
export type Usage = UsageReport;

/** `GET /v1/budget` and `PUT /v1/budget`: the site's daily and monthly windows. */
export type Budget = BudgetView;
export type BudgetWindow = BudgetWindowView;
