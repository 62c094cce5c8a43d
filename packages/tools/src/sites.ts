import { DEFAULT_BUDGETS, type MonitoringCost } from '@cm/contract';
import { normalizeDomain } from '@cm/core';
import type { BudgetSettings, NewSite, Site, Store } from '@cm/store';
import { monitoringCost } from './monitoring-settings';

/** A new site's spend limits: DEFAULT_BUDGETS' unless its creator gives others (null: no limit). */
export type NewSiteBudget = Partial<Pick<BudgetSettings, 'daily_usd' | 'monthly_usd'>>;

/**
 * Creates a site with its first API key and its budget (the default limits unless given), and says what
 * monitoring its own domain daily costs a month: nothing is spent unseen from its first day.
 */
export async function createSite(
  store: Store,
  input: NewSite,
  budget: NewSiteBudget,
  now: Date,
): Promise<{
  site: Site;
  api_key: string;
  budget: Pick<BudgetSettings, 'daily_usd' | 'monthly_usd'>;
  monitoring: MonitoringCost | null;
}> {
  const at = now.toISOString();
  const { site, api_key } = await store.sites.create(input, at);
  const limits = await store.budgets.setLimits(
    site.site_id,
    {
      daily_usd: budget.daily_usd === undefined ? DEFAULT_BUDGETS.siteDailyUsd : budget.daily_usd,
      monthly_usd: budget.monthly_usd === undefined ? DEFAULT_BUDGETS.siteMonthlyUsd : budget.monthly_usd,
    },
    at,
  );
  const own = normalizeDomain(site.domain);
  return {
    site,
    api_key,
    budget: { daily_usd: limits.daily_usd, monthly_usd: limits.monthly_usd },
    monitoring: own ? monitoringCost(own, 'site', false) : null,
  };
}
