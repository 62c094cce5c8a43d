import { RankMessage } from '@cm/contract';
import { enqueue, getSerpQueue, getStore, meterOf, queuedPriceUsd, siteBudget, sqsWorker } from '@cm/runtime';
import { pendingLedger, runRankWorker } from '@cm/tools';

/** A site's rank checks of a day: claimed, held to its budget, posted to the SERP standard queue; their calls go into the ledger under `rank_tracking`. */
export const handler = sqsWorker('rank', RankMessage, async (message, observation, deadline) => {
  const ledger = pendingLedger(getStore(), message.site_id, 'rank_tracking');
  const meter = meterOf(undefined, { signal: deadline, ledger });
  const deps = async () => ({
    store: getStore(),
    serpQueue: await getSerpQueue(),
    meter,
    now: new Date(),
    // A scheduled run reserves here (track_rankings' first check carries its ticket).
    budget: siteBudget(message.site_id, observation, enqueue, true),
    enqueue,
    checkPriceUsd: (depth: number) => queuedPriceUsd({ rank: depth }),
  });
  await runRankWorker(meter, deps, message, observation);
});
