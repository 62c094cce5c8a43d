import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LinkStore } from './links';
import { PageStore } from './page-documents';
import { RevisionStore } from './revisions';
import { PageListingStore } from './page-listings';
import { PageLiveStore } from './page-live';
import { PagePartStore } from './page-parts';
import { RedirectStore } from './redirects';
import { SerpStore } from './serps';
import { UsageStore } from './usage';
import { QuotaStore } from './quotas';
import { RowStore } from './rows';
import { Semaphore } from './semaphore';
import { JobStore } from './jobs';
import { ResearchStore } from './research-records';
import { BacklinkStore } from './backlinks';
import { LIMITS } from '@cm/contract';
import { SiteStore } from './sites';
import { BudgetStore } from './budgets';
import { ResultStore } from './results';
import { healthKey } from './keys';
import { ConfirmStore } from './confirms';
import { RelinkRunStore } from './relinks';
import { ResearchWaitStore } from './research-waits';
import { SectionStore } from './sections';
import { PrimaryKeywordStore } from './primary-keywords';
import { RankStore } from './ranks';
import { SharedDataStore } from './shared';
import { IndexNowStore } from './indexnow';
import { ScheduleStore } from './schedules';
import { SearchDayStore } from './search-days';
import { SearchConsoleStore } from './search-console';
import { RefreshQueueStore } from './refresh-queue';

export { createDocumentClient, STORE_CLIENT_LIMITS } from './client';
export { TABLE } from './table';
export type { NewSite, Site } from './sites';
export { apiKeyHash } from './sites';
export type {
  StoredPage,
  LinkTarget,
  LinksToIndex,
  ListingRun,
  NotifyApplied,
  PutPage,
  PutResult,
  RunToward,
} from './page-types';
export type { PageLink } from './links';
export { type RevisionStore, type StoredRevision } from './revisions';
export { SectionStore } from './sections';
export { mapLimit } from './batch';
export { RowConflict } from './errors';
export { keywordUnique } from './keys';
export type { Revocable } from './semaphore';
export { Semaphore, groupsOf } from './semaphore';
export type { Job, ResearchJobInput } from './jobs';
export type { StoredResearch } from './research-records';
export type { BacklinkSnapshot, MonitorClaim } from './backlinks';
export { serpIdentity, sharedId, type Shared, type SharedDatum } from './shared';
export { JobStore, ResearchStore, BacklinkStore };
export type { BudgetLimits, BudgetSettings, HoldRef, SpendScope, WindowState, Windows } from './budgets';
export { BudgetStore };
export type { ConfirmRefusal } from './confirms';
export { ConfirmStore };
export { RelinkRunStore, type RelinkRun } from './relinks';
export type { QueuedEntry } from './refresh-queue';
export { type DueChange } from './schedules';
export { ResearchWaitStore, type WaitingJob } from './research-waits';
export { RankStore, checkKey, type RankClaim, type TrackedScope } from './ranks';
export { ElicitationStore, type ElicitationAction } from './elicitations';
export { OAuthStore } from './oauth';
export { AccessTokenStore } from './access-tokens';
export { BreakerStore, type BreakerSettings, type BreakerState } from './breakers';
export { SiteStore, PageStore, LinkStore, RowStore, SerpStore, UsageStore, QuotaStore, ResultStore };

export interface Store {
  sites: SiteStore;
  /** A site's page documents: publish's write, and the page read whole. */
  pages: PageStore;
  /** The versions of a page its publishes replaced, for a rollback. */
  revisions: RevisionStore;
  /** The site's pages as lists read them, and the cards of the pages a page links to. */
  pageListings: PageListingStore;
  /** A page's live state and relink: notify's write, the relink it owes, the links relink keeps from readers. */
  pageLive: PageLiveStore;
  /** Pages on a schedule: the changes due, by the minute they are due in. */
  schedules: ScheduleStore;
  /** What a site adds of its own to its questions: summaries and community answers. */
  pageParts: PagePartStore;
  /** Who holds each slug a page was renamed from or to, and the redirects of renamed pages. */
  redirects: RedirectStore;
  links: LinkStore;
  /** A category's articles and a topic's questions, for the site's section pages. */
  sections: SectionStore;
  /** The pages that name each primary keyword, for a publish's warning of another live page with its keyword. */
  primaryKeywords: PrimaryKeywordStore;
  /** The progress of relinks' fan-outs, so the last batch clears the page's pending relink. */
  relinks: RelinkRunStore;
  rows: RowStore;
  serps: SerpStore;
  usage: UsageStore;
  quotas: QuotaStore;
  /** Spend limits, and the counters paid calls reserve against. */
  budgets: BudgetStore;
  /** One-use approval tokens of paid calls over the site's threshold. */
  confirms: ConfirmStore;
  /** Places for web, reddit and url research, across the whole deployment; each site's taken in its group (its share). */
  researchSlots: Semaphore;
  /** Research jobs waiting for a place under the cap, oldest first. */
  researchWaits: ResearchWaitStore;
  jobs: JobStore;
  research: ResearchStore;
  backlinks: BacklinkStore;
  /** Rank tracking: tracked scopes and each keyword's dated checks. */
  ranks: RankStore;
  /** MCP tool results too large for one reply, kept for their pages. */
  results: ResultStore;
  /** The shared cache of public data: a provider's answer, paid once a day for every site that needs it. */
  shared: SharedDataStore;
  /** Each site's URLs waiting to be sent to IndexNow. */
  indexNow: IndexNowStore;
  /** Each site's Search Console days, as the daily import stores them. */
  searchDays: SearchDayStore;
  /** Each site's Search Console connection. */
  searchConsole: SearchConsoleStore;
  /** Each site's decayed pages, most clicks at risk first, and the measure of their republish. */
  refreshQueue: RefreshQueueStore;
  /** A site's places for active competitors: one per domain, at most 10. */
  competitorPlaces(siteId: number): Semaphore;
  /** One cheap read of the table (an item that never exists); throws `StoreUnavailable` when the table cannot be reached. */
  ping(): Promise<void>;
}

/** What a deployment may set of the store: each site's share of the research cap (RESEARCH_SITE_PLACES). */
export interface StoreOptions {
  researchSitePlaces?: number;
}

export function createStore(db: DynamoDBDocumentClient, tableName: string, options: StoreOptions = {}): Store {
  const links = new LinkStore(db, tableName);
  return {
    sites: new SiteStore(db, tableName),
    pages: new PageStore(db, tableName),
    revisions: new RevisionStore(db, tableName),
    pageListings: new PageListingStore(db, tableName),
    pageLive: new PageLiveStore(db, tableName),
    schedules: new ScheduleStore(db, tableName),
    pageParts: new PagePartStore(db, tableName),
    redirects: new RedirectStore(db, tableName),
    links,
    sections: new SectionStore(db, tableName),
    primaryKeywords: new PrimaryKeywordStore(db, tableName),
    relinks: new RelinkRunStore(db, tableName),
    rows: new RowStore(db, tableName),
    serps: new SerpStore(db, tableName),
    usage: new UsageStore(db, tableName),
    quotas: new QuotaStore(db, tableName),
    budgets: new BudgetStore(db, tableName),
    confirms: new ConfirmStore(db, tableName),
    researchSlots: new Semaphore(
      db,
      tableName,
      'research',
      LIMITS.concurrentResearch,
      options.researchSitePlaces ?? LIMITS.researchSitePlaces,
    ),
    researchWaits: new ResearchWaitStore(db, tableName),
    jobs: new JobStore(db, tableName),
    research: new ResearchStore(db, tableName),
    backlinks: new BacklinkStore(db, tableName),
    ranks: new RankStore(db, tableName),
    results: new ResultStore(db, tableName),
    shared: new SharedDataStore(db, tableName),
    indexNow: new IndexNowStore(db, tableName),
    searchDays: new SearchDayStore(db, tableName),
    searchConsole: new SearchConsoleStore(db, tableName),
    refreshQueue: new RefreshQueueStore(db, tableName),
    competitorPlaces: (siteId) => new Semaphore(db, tableName, `competitors#${siteId}`, LIMITS.activeCompetitors),
    ping: async () => {
      await db.send(new GetCommand({ TableName: tableName, Key: healthKey }));
    },
  };
}
export type { SearchConsoleConnection } from './search-console.decoder';
