import { RankCollectMessage } from '@cm/contract';
import { getSerpQueue, getStore, meterOf, sqsWorker } from '@cm/runtime';
import { collectRankChecks } from '@cm/tools';

/** Collects posted rank checks once ready and stores the day's rank rows; a task not ready yet has the message delivered again. */
export const handler = sqsWorker(RankCollectMessage, async (message, observation) => {
  const outcome = await collectRankChecks(
    { store: getStore(), serpQueue: await getSerpQueue(), meter: meterOf(), now: new Date() },
    message,
  );
  for (const { keyword, error } of outcome.failed)
    observation.log.warn('rank check failed: no row that day', { keyword, error });
  if (outcome.pending.length > 0)
    throw new Error(
      `${outcome.pending.length} of ${message.tasks.length} SERP tasks are not ready (${outcome.pending[0]?.reason}): the queue delivers the message again`,
    );
});
