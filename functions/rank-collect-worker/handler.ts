import { RankCollectMessage } from '@cm/contract';
import { enqueue, getSerpQueue, getStore, meterOf, sqsWorker } from '@cm/runtime';
import { pendingLedger, runRankCollectWorker } from '@cm/tools';

/** Collects a site's rank checks once ready (its posted tasks, the shared SERPs it awaits) and stores the day's rank rows; a check not ready yet has the message delivered again. */
export const handler = sqsWorker('rank-collect', RankCollectMessage, async (message, observation, deadline) => {
  const ledger = pendingLedger(getStore(), message.site_id, 'rank_tracking');
  const deps = {
    store: getStore(),
    serpQueue: await getSerpQueue(),
    meter: meterOf(undefined, { signal: deadline, ledger }),
    now: new Date(),
    enqueue,
  };
  await runRankCollectWorker(deps, message, observation);
});
