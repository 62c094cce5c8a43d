import { RankMessage } from '@cm/contract';
import { enqueue, getSerpQueue, getStore, meterOf, queuedPriceUsd, siteBudget, sqsWorker } from '@cm/runtime';
import { pendingLedger, runRankChecks } from '@cm/tools';

/** A site's rank checks of a day: claimed, held to its budget, posted to the SERP standard queue; their calls go into the ledger under `rank_tracking`. */
export const handler = sqsWorker('rank', RankMessage, async (message, observation, deadline) => {
  const meter = meterOf(undefined, {
    signal: deadline,
    ledger: pendingLedger(getStore(), message.site_id, 'rank_tracking'),
  });
  try {
    const outcome = await runRankChecks(
      {
        store: getStore(),
        serpQueue: await getSerpQueue(),
        meter,
        now: new Date(),
        // A scheduled run reserves here (track_rankings' first check carries its ticket).
        budget: siteBudget(message.site_id, observation, enqueue, true),
        enqueue,
        checkPriceUsd: (depth) => queuedPriceUsd({ rank: depth }),
      },
      message,
    );
    for (const { keyword, error } of outcome.refused)
      observation.log.warn('rank check refused by the provider', { keyword, error });
    if (outcome.claimedAlready > 0)
      observation.log.info('checked already today by another run', { keywords: outcome.claimedAlready });
    if (outcome.deferred > 0) observation.metric('rank_checks_deferred', outcome.deferred);
    if (outcome.fromShared + outcome.awaited > 0)
      observation.log.info("checked by another site's post: read from the shared cache", {
        now: outcome.fromShared,
        awaited: outcome.awaited,
      });
    observation.metric('rank_checks_posted', outcome.posted);
  } finally {
    observation.metric('provider_cost_usd', meter.costUsd, { tool: 'rank_tracking' });
  }
});
