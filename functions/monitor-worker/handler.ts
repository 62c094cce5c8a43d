import { MonitorMessage } from '@cm/contract';
import { enqueue, getBacklinkData, getStore, meterOf, queuedPriceUsd, siteBudget, sqsWorker } from '@cm/runtime';
import { pendingLedger, runMonitor } from '@cm/tools';

/** A site's monitoring run: each domain's backlink snapshot, claimed once a day; its provider calls go into the site's usage ledger under `monitor`. */
export const handler = sqsWorker('monitor', MonitorMessage, async (message, observation, deadline) => {
  const meter = meterOf(undefined, { signal: deadline, ledger: pendingLedger(getStore(), message.site_id, 'monitor') });
  try {
    const outcome = await runMonitor(
      {
        store: getStore(),
        backlinkData: await getBacklinkData(),
        meter,
        now: new Date(),
        // A scheduled run reserves here (add_competitor's first run carries its ticket).
        budget: siteBudget(message.site_id, observation, enqueue, true),
        queuedPriceUsd,
      },
      message,
    );
    for (const { domain, reason } of outcome.skipped)
      observation.log.warn('monitoring skipped until the next schedule', { domain, reason });
    if (outcome.claimedAlready.length > 0)
      observation.log.info('monitored already today by another run', { domains: outcome.claimedAlready });
    if (outcome.deferred > 0) observation.metric('monitor_runs_deferred', outcome.deferred);
  } finally {
    observation.metric('provider_cost_usd', meter.costUsd, { tool: 'monitor' });
  }
});
