import { ApiError, type KeywordRow, type RowOf, type TableName, type Enqueue } from '@cm/contract';
import { keywordScore, normalizeDomain } from '@cm/core';
import type { BacklinkDataProvider, KeywordDataProvider, Meter, MonitorWork } from '@cm/providers';
import type { Site, Store } from '@cm/store';
import type { SiteBudget } from './budget';

/** The `data_source` of a result answered from stored rows, with no provider call. */
export const DATABASE = 'database';

/** What a tool runs with: the caller's site, the store, the configured providers and the request's meter. */
export interface ToolContext {
  siteId: number;
  store: Store;
  keywordData: KeywordDataProvider;
  backlinkData: BacklinkDataProvider;
  meter: Meter;
  /** The site's budget: the meter reserves each paid call from it; queued work reserves when accepted. */
  budget: SiteBudget;
  /** The list price of queued work where it is paid (a web research job of a mode, a monitoring run of the site or a competitor, a rank check at a depth); 0 when it is free (the sandbox). */
  queuedPriceUsd(
    work: { research: string } | { monitor: 'site' | 'competitor' } | { backlinks: MonitorWork } | { rank: number },
  ): number;
  now: Date;
  /** The `data_source` of web research jobs (the worker runs them). */
  researchSource: string;
  /** How long a research job's place under the cap is leased. */
  researchLeaseMs: number;
  /** Every address of a host name (DNS and the hosts file), none for a name that does not exist; rejects when the lookup fails. */
  resolveHost(host: string): Promise<string[]>;
  /** Puts a message on a worker's queue. */
  enqueue: Enqueue;
  /** Reports a figure only the tool knows (places in use, quota used) to the service's metrics. */
  measure(metric: 'research_slots_in_use' | 'refresh_quota_used', value: number): void;
}

/** The caller's site; it exists, since its key was just checked. */
export async function siteOf(ctx: ToolContext): Promise<Omit<Site, 'domain'> & { domain: string | null }> {
  const site = await ctx.store.sites.get(ctx.siteId);
  if (!site) throw new Error(`site ${ctx.siteId} has a key but no site item`);
  return { ...site, domain: normalizeDomain(site.domain) };
}

/** Domains of the site's active competitors. */
export async function competitorDomains(ctx: Pick<ToolContext, 'siteId' | 'store'>): Promise<string[]> {
  const active = await ctx.store.rows.byField(ctx.siteId, 'cm_competitors', 'active', true);
  return active.map((row) => row.domain);
}

/** A cm_pages row's keywords: its primary keyword, then its secondary ones. */
export const pageKeywords = (page: RowOf<'cm_pages'>): string[] =>
  page.primary_keyword === undefined ? page.secondary_keywords : [page.primary_keyword, ...page.secondary_keywords];

/** The keyword score of a stored cm_keywords row. */
export const rowScore = (row: KeywordRow): number => keywordScore(row);

/** A row of the caller's site, or `404 not_found` naming the table and id. */
export async function rowOrNotFound<T extends TableName>(
  ctx: Pick<ToolContext, 'siteId' | 'store'>,
  table: T,
  id: number,
): Promise<RowOf<T>> {
  const row = await ctx.store.rows.get(ctx.siteId, table, id);
  if (!row) throw rowNotFound(table, id);
  return row;
}

export const rowNotFound = (table: TableName, id: number): ApiError =>
  new ApiError('not_found', `No ${table} row with id ${id}`, { table, id });
