import { RankCollectMessage } from '@cm/contract';
import { enqueue, getSerpQueue, getStore, meterOf, sqsWorker } from '@cm/runtime';
import { collectRankChecks, pendingLedger } from '@cm/tools';

/** Collects a site's rank checks once ready (its posted tasks, the shared SERPs it awaits) and stores the day's rank rows; a check not ready yet has the message delivered again. */
export const handler = sqsWorker('rank-collect', RankCollectMessage, async (message, observation, deadline) => {
  const outcome = await collectRankChecks(
    {
      store: getStore(),
      serpQueue: await getSerpQueue(),
      meter: meterOf(undefined, {
        signal: deadline,
        ledger: pendingLedger(getStore(), message.site_id, 'rank_tracking'),
      }),
      now: new Date(),
      enqueue,
    },
    message,
  );
  for (const { keyword, error } of outcome.failed)
    observation.log.warn('rank check failed: no row that day', { keyword, error });
  if (outcome.rerun > 0)
    observation.log.info("another site's run gave its checks back: the site's run is queued again", {
      keywords: outcome.rerun,
    });
  if (outcome.pending.length > 0)
    throw new Error(
      `${outcome.pending.length} of ${message.tasks.length + (message.awaiting?.checks.length ?? 0)} SERP checks are not ready (${outcome.pending[0]?.reason}): the queue delivers the message again`,
    );
});
