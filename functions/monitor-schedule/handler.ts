import { enqueue, getConfig, getStore, scheduled, scheduledWorkStopped } from '@cm/runtime';
import { runDailySchedule } from '@cm/tools';

/**
 * The daily EventBridge schedule: one read of the deployment's day (whether its work has room under the
 * cap) and of the site sequence, then a plan message per block of sites (the plan worker queues each
 * site's monitoring run, and its rank checks of the day the rule fired for).
 */
export const handler = scheduled('monitoring planned', async (observation, at) => {
  const planned = await runDailySchedule({
    store: getStore(),
    enqueue,
    now: at,
    deploymentDailyUsd: getConfig().globalDailyBudgetUsd,
    spendNow: new Date(),
  });
  if (planned.budget?.stopped) scheduledWorkStopped(observation, { ...planned.budget });
  return planned;
});
