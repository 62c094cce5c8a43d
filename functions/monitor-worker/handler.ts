import { MonitorMessage } from '@cm/contract';
import { enqueue, getBacklinkData, getStore, meterOf, queuedPriceUsd, siteBudget, sqsWorker } from '@cm/runtime';
import { pendingLedger, runMonitorWorker } from '@cm/tools';

/** A site's monitoring run: each domain's backlink snapshot, claimed once a day; its provider calls go into the site's usage ledger under `monitor`. */
export const handler = sqsWorker('monitor', MonitorMessage, async (message, observation, deadline) => {
  const ledger = pendingLedger(getStore(), message.site_id, 'monitor');
  const meter = meterOf(undefined, { signal: deadline, ledger });
  const deps = async () => ({
    store: getStore(),
    backlinkData: await getBacklinkData(),
    meter,
    now: new Date(),
    // A scheduled run reserves here (add_competitor's first run carries its ticket).
    budget: siteBudget(message.site_id, observation, enqueue, true),
    queuedPriceUsd,
  });
  await runMonitorWorker(meter, deps, message, observation);
});
