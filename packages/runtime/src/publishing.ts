import type { PublishingContext } from '@cm/publishing';
import { getConfig } from './config';
import { enqueue } from './queues';
import { getStore } from './services';

/** What the publishing workflows run with here: the store, the queues, and this deployment's IndexNow window (INDEXNOW_DELAY_SECONDS). */
export const publishingContext = (): PublishingContext => ({
  store: getStore(),
  enqueue,
  indexNowDelaySeconds: getConfig().indexNowDelaySeconds,
});
