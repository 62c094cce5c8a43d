import { RelinkMessage } from '@cm/contract';
import { planRelink } from '@cm/publishing';
import { enqueue, getStore, sqsWorker } from '@cm/runtime';

/** Plans one relink per message: its linking pages go, in batches, to the relink-pages queue. */
export const handler = sqsWorker('relink', RelinkMessage, async (message, observation) => {
  const plan = await planRelink({ store: getStore(), enqueue }, message);
  if (plan.truncated)
    observation.log.error(
      'relink planned only its first batches: the page has more linking pages than one relink covers',
      {
        target_id: message.target_id,
        ...plan,
      },
    );
});
