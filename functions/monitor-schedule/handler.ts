import { enqueue, getStore, queuedPriceUsd, scheduled, siteBudget } from '@cm/runtime';
import { scheduleMonitoring } from '@cm/tools';

/** The daily EventBridge schedule: queues one monitoring run per site domain and active competitor, each reserved from its site's budget. */
export const handler = scheduled('monitoring queued', async (observation) => {
  const outcome = await scheduleMonitoring({
    store: getStore(),
    enqueue,
    now: new Date(),
    budgetOf: (siteId) => siteBudget(siteId),
    queuedPriceUsd,
  });
  if (outcome.deferred > 0) observation.metric('monitor_runs_deferred', outcome.deferred);
  return outcome;
});
