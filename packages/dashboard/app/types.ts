import type {
  AddCompetitorResult,
  DbSelectResult,
  PageList,
  SerpBacklinksResult,
  SerpKeywordRefreshResult,
  SerpLandscapeResult,
  UsageReport,
} from '@cm/contract';

/* The replies the app reads, typed from the contract's zod schemas (types only: nothing of the contract reaches the bundle). */

/** What a zod schema parses to, read from the schema's type without importing zod. */
type Out<S> = S extends { _zod: { output: infer O } } ? O : never;

export type Landscape = Out<typeof SerpLandscapeResult>;
export type LandscapeKeyword = Landscape['keywords'][number];
export type SovDomain = Landscape['sov']['domains'][number];
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

/** A listed page, with what the listing adds when asked (`url`; `suppressed_links` with `suppressed_links=true`). */
export type PageItem = Out<typeof PageList>['items'][number] & {
  url?: string;
  suppressed_links?: { id: string; type: 'article' | 'question'; since: string }[];
};
export interface PageListing {
  items: PageItem[];
  next_cursor: string | null;
}

export interface UsageDay {
  day: string;
  tool: string;
  provider: string;
  calls: number;
  cost_usd: number;
}
export type Usage = UsageReport & { by_day?: UsageDay[] };
