import { RelinkMessage } from '@cm/contract';
import { relinkStep } from '@cm/publishing';
import { enqueue, getStore, sqsWorker } from '@cm/runtime';

/** One step of a relink fan-out per message; the rest of it goes back on the queue. */
export const handler = sqsWorker(RelinkMessage, async (message, observation) => {
  observation.metric('relinks', await relinkStep({ store: getStore(), enqueue }, message));
});
