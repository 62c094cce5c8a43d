import { MonitorMessage } from '@cm/contract';
import { getBacklinkData, getStore, meterOf, siteBudget, sqsWorker } from '@cm/runtime';
import { runMonitor } from '@cm/tools';

/** Takes one domain's backlink snapshot per message; its provider calls go into the site's usage ledger under `monitor` and settle the run's reservation. */
export const handler = sqsWorker(MonitorMessage, async (message, observation) => {
  const meter = meterOf();
  const store = getStore();
  const budgetOf = (siteId: number) => siteBudget(siteId, observation);
  const ran = await runMonitor(
    { store, backlinkData: await getBacklinkData(), meter, now: new Date(), budgetOf },
    message,
  );
  if (!ran) return;
  if (ran.skipped)
    observation.log.warn('monitoring skipped until the next schedule', { domain: message.domain, reason: ran.skipped });
  observation.metric('provider_cost_usd', meter.costUsd, { tool: 'monitor' });
  await store.usage.record(ran.siteId, 'monitor', meter.calls);
});
