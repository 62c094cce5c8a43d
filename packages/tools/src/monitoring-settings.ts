import { roundUsd, type MonitoringCost, type MonitoringInput, type MonitoringView } from '@cm/contract';
import { normalizeDomain } from '@cm/core';
import { monitoringMonthPrice } from '@cm/providers';
import type { Site, Store } from '@cm/store';
import { competitorDomains } from './context';

/*
 * What a site's daily monitoring costs a month, and its setting: competitor monitoring paused or not.
 * While paused, the daily runs take only the site's own domain (with its link gap, so serp_backlinks
 * keeps it); a competitor's snapshots resume when it does.
 */

/** What monitoring `domain` daily costs a month at list prices, as the site's own domain or a competitor. */
export function monitoringCost(domain: string, kind: 'site' | 'competitor', paused: boolean): MonitoringCost {
  const price = monitoringMonthPrice(kind);
  return { domain, month_usd: price.usd, at_most_month_usd: price.at_most_usd, paused };
}

/** Whether the site's competitors are left out of its monitoring runs. */
export const competitorsPaused = (site: Pick<Site, 'competitors_paused_at'>): boolean =>
  site.competitors_paused_at !== undefined;

async function viewOf(store: Store, site: Site): Promise<MonitoringView> {
  const paused = competitorsPaused(site);
  const own = normalizeDomain(site.domain);
  const competitors = await competitorDomains({ siteId: site.site_id, store });
  const domains = [
    ...(own ? [monitoringCost(own, 'site', false)] : []),
    ...competitors.map((domain) => monitoringCost(domain, 'competitor', paused)),
  ];
  const running = domains.filter((domain) => !domain.paused);
  return {
    competitors_paused: paused,
    paused_at: site.competitors_paused_at ?? null,
    domains,
    month_usd: roundUsd(running.reduce((sum, domain) => sum + domain.month_usd, 0)),
    at_most_month_usd: roundUsd(running.reduce((sum, domain) => sum + domain.at_most_month_usd, 0)),
  };
}

const noSite = (siteId: number) => new Error(`site ${siteId} has a key but no site item`);

/** GET /v1/monitoring: what the site monitors daily and what a month of it costs. */
export async function monitoringView(store: Store, siteId: number): Promise<MonitoringView> {
  const site = await store.sites.get(siteId);
  if (!site) throw noSite(siteId);
  return viewOf(store, site);
}

/** PUT /v1/monitoring: pauses or resumes the site's competitor monitoring, then answers as GET does. */
export async function setMonitoring(
  store: Store,
  siteId: number,
  input: MonitoringInput,
  now: Date,
): Promise<MonitoringView> {
  const site = await store.sites.pauseCompetitors(siteId, input.competitors_paused ? now.toISOString() : null);
  if (!site) throw noSite(siteId);
  return viewOf(store, site);
}
