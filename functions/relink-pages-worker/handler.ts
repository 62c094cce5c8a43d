import { RelinkPagesMessage } from '@cm/contract';
import { relinkPages } from '@cm/publishing';
import { getStore, sqsWorker } from '@cm/runtime';

/** Brings one batch of a relink's linking pages in line with the target's live state; it sends nothing. */
export const handler = sqsWorker('relink-pages', RelinkPagesMessage, async (message, observation) => {
  observation.metric('relinks', await relinkPages({ store: getStore() }, message));
});
