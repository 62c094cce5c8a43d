import { MonitorMessage } from '@cm/contract';
import { Meter } from '@cm/providers';
import { getBacklinkData, getStore, sqsWorker } from '@cm/runtime';
import { runMonitor } from '@cm/tools';

/** Takes one domain's backlink snapshot per message; its provider calls go into the site's usage ledger under `monitor`. */
export const handler = sqsWorker(MonitorMessage, async (message, observation) => {
  const meter = new Meter();
  const store = getStore();
  const ran = await runMonitor({ store, backlinkData: await getBacklinkData(), meter, now: new Date() }, message);
  if (!ran) return;
  if (ran.skipped) observation.log.warn('monitoring skipped until the next schedule', { domain: message.domain, reason: ran.skipped });
  observation.metric('provider_cost_usd', meter.costUsd, { tool: 'monitor' });
  await store.usage.record(ran.siteId, 'monitor', meter.calls);
});
