import { MonitorPlanMessage } from '@cm/contract';
import { enqueue, getBacklinkData, getConfig, getStore, queuedPriceUsd, siteBudget, sqsWorker } from '@cm/runtime';
import { planMonitoring } from '@cm/tools';

/** Pays a block of sites' daily backlink numbers once across sites, in bulk, and queues each one's monitoring run. */
export const handler = sqsWorker('monitor-plan', MonitorPlanMessage, async (message, observation, deadline) => {
  const deps = {
    store: getStore(),
    enqueue,
    backlinkData: await getBacklinkData(),
    listPrices: getConfig().sandboxListPrices,
    signal: deadline,
    // Scheduled work: held to the deployment's cap less the share kept for the sites' own calls.
    budgetOf: (siteId: number) => siteBudget(siteId, observation, enqueue, true),
    queuedPriceUsd,
    now: new Date(),
  };
  await planMonitoring(deps, message);
});
