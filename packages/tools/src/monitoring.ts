import { ApiError, type BudgetTicket, type MonitorMessage } from '@cm/contract';
import { normalizeDomain, utcDay } from '@cm/core';
import { ProviderError, type BacklinkDataProvider, type Meter } from '@cm/providers';
import type { BacklinkSnapshot, Store } from '@cm/store';
import type { SiteBudget } from './budget';
import { competitorDomains, type ToolContext } from './context';

/* Monitoring: the daily schedule, the runs it and add_competitor queue, and the run that takes a backlink snapshot. */

/** Gap domains the site's monitoring run keeps, strongest first. */
export const GAP_LIMIT = 100;

/**
 * The monitoring messages of a site's domains (backlink snapshots are taken by the monitor worker),
 * each with its reservation of the run's list price. A run the budget has no room for is not queued:
 * the next daily schedule tries it again. Answers how many runs the budget deferred.
 */
export async function queueMonitoring(
  ctx: Pick<ToolContext, 'enqueue' | 'budget' | 'queuedPriceUsd'>,
  siteId: number,
  siteDomain: string | null,
  domains: readonly string[],
  requestedAt: string,
): Promise<number> {
  const deferred = await Promise.all(
    domains.map(async (domain) => {
      let budget: BudgetTicket | null;
      try {
        budget = await ctx.budget.reserveQueued(
          ctx.queuedPriceUsd({ monitor: domain === siteDomain ? 'site' : 'competitor' }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'budget_exceeded') return 1;
        throw error;
      }
      try {
        await ctx.enqueue('monitor', {
          site_id: siteId,
          domain,
          requested_at: requestedAt,
          ...(budget ? { budget } : {}),
        } satisfies MonitorMessage);
      } catch (error) {
        if (budget) await ctx.budget.settle(budget, 0, false);
        throw error;
      }
      return 0;
    }),
  );
  return deferred.reduce<number>((sum, n) => sum + n, 0);
}

export interface MonitorDeps {
  store: Store;
  backlinkData: BacklinkDataProvider;
  meter: Meter;
  now: Date;
  /** The budget of a site, which settles the reservation the run was queued with. */
  budgetOf(siteId: number): SiteBudget;
}

/**
 * One monitoring run: a dated snapshot of a domain the site still tracks (its own, or an active
 * competitor's; a deleted competitor's run stores nothing). The site's own snapshot carries its link
 * gap against the competitors tracked now. A provider failure worth retrying throws, so the queue
 * delivers the message again; any other skips the run until the next schedule (`skipped` says why).
 */
export async function runMonitor(
  deps: MonitorDeps,
  message: MonitorMessage,
): Promise<{ siteId: number; skipped?: string } | null> {
  const ran = await monitorOnce(deps, message);
  // Settled once the run is over (a retry throws before, and settles when it is over).
  if (message.budget)
    await deps.budgetOf(message.site_id).settle(message.budget, deps.meter.costUsd, deps.meter.simulated);
  return ran;
}

async function monitorOnce(
  deps: MonitorDeps,
  message: MonitorMessage,
): Promise<{ siteId: number; skipped?: string } | null> {
  const { store } = deps;
  const site = await store.sites.get(message.site_id);
  if (!site) return null;
  const ctx = { siteId: site.site_id, store };
  const siteDomain = normalizeDomain(site.domain);
  const competitors = await competitorDomains(ctx);
  const isSite = message.domain === siteDomain;
  if (!isSite && !competitors.includes(message.domain)) return null;
  try {
    const profile = await deps.backlinkData.profile(message.domain, deps.meter);
    const gap =
      isSite && competitors.length > 0
        ? await deps.backlinkData.linkGap(message.domain, competitors, GAP_LIMIT, deps.meter)
        : undefined;
    const snapshot: BacklinkSnapshot = {
      domain: message.domain,
      day: utcDay(deps.now),
      taken_at: deps.now.toISOString(),
      data_source: deps.backlinkData.name,
      profile,
      ...(gap ? { gap } : {}),
    };
    await store.backlinks.put(site.site_id, snapshot);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.retryable) throw error;
    return { siteId: site.site_id, skipped: error.message };
  }
  return { siteId: site.site_id };
}

export interface ScheduleDeps {
  store: Store;
  enqueue: ToolContext['enqueue'];
  now: Date;
  budgetOf(siteId: number): SiteBudget;
  queuedPriceUsd: ToolContext['queuedPriceUsd'];
}

/**
 * The daily schedule: one monitoring message per site domain and active competitor, for every site,
 * each reserved from its site's budget; runs a budget stops are deferred to the next schedule.
 */
export async function scheduleMonitoring(deps: ScheduleDeps): Promise<{ queued: number; deferred: number }> {
  const { store, now } = deps;
  let queued = 0;
  let deferred = 0;
  await store.sites.forEach(async (sites) => {
    for (const site of sites) {
      const siteDomain = normalizeDomain(site.domain);
      const competitors = await competitorDomains({ siteId: site.site_id, store });
      const domains = [...(siteDomain ? [siteDomain] : []), ...competitors];
      const stopped = await queueMonitoring(
        { ...deps, budget: deps.budgetOf(site.site_id) },
        site.site_id,
        siteDomain,
        domains,
        now.toISOString(),
      );
      queued += domains.length - stopped;
      deferred += stopped;
    }
  });
  return { queued, deferred };
}
