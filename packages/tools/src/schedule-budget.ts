import { roundUsd } from '@cm/contract';
import { utcDay } from '@cm/core';
import { scheduledCapUsd } from './budget';
import { scheduleMonitoring, type ScheduleDeps } from './monitoring';

/*
 * The daily schedule stops before the deployment's daily cap does: its work (monitoring and rank runs)
 * may take the cap less the share kept for the sites' own calls (scheduledCapUsd). A schedule that
 * finds that share used starts nothing; a run that would pass it is deferred, as a run the site's
 * budget has no room for is (SiteBudget's `scheduled`).
 */

/** What the schedule found of the deployment's day: its cap, the share its work may take, and what is spent and reserved. */
export interface ScheduleBudget {
  cap_usd: number;
  scheduled_cap_usd: number;
  used_usd: number;
  /** true: the share is used, and the schedule started nothing. */
  stopped: boolean;
}

export interface DailyScheduleDeps extends ScheduleDeps {
  /** The deployment's daily cap in USD; null: none, and nothing stops the schedule. */
  deploymentDailyUsd: number | null;
  /** Now, as budgets count it: the UTC day whose spend the schedule's work reserves in. */
  spendNow: Date;
}

/**
 * The daily schedule, after one read of the deployment's day: when what all sites spent and reserved
 * today has reached the share the schedule's work may take, it plans nothing, and says so (`budget`).
 */
export async function runDailySchedule(
  deps: DailyScheduleDeps,
): Promise<{ sites: number; plans: number; budget?: ScheduleBudget }> {
  const cap = deps.deploymentDailyUsd;
  if (cap === null) return scheduleMonitoring(deps);
  const today = (await deps.store.budgets.windows('deployment', utcDay(deps.spendNow))).day;
  const used = roundUsd((today?.spent ?? 0) + (today?.reserved ?? 0));
  const allowed = scheduledCapUsd(cap);
  const budget = { cap_usd: cap, scheduled_cap_usd: allowed, used_usd: used, stopped: used >= allowed };
  if (budget.stopped) return { sites: 0, plans: 0, budget };
  return { ...(await scheduleMonitoring(deps)), budget };
}
