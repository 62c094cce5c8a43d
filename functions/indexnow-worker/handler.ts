import { IndexNowMessage } from '@cm/contract';
import { sendAnnouncements } from '@cm/publishing';
import { getStore, indexNowSubmit, sqsWorker } from '@cm/runtime';

/** A site's changed URLs, sent to IndexNow; an answer worth waiting for fails the message, which SQS delivers again. */
export const handler = sqsWorker('indexnow', IndexNowMessage, async (message, observation, deadline) => {
  const sent = await sendAnnouncements({ store: getStore(), submit: indexNowSubmit }, message, deadline);
  observation.log.info('IndexNow sent', sent);
});
