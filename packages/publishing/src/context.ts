import type { Enqueue } from '@cm/contract';
import type { Store } from '@cm/store';

/** What the publishing workflows run with: the store, and the queues they send relink work to. */
export interface PublishingContext {
  store: Store;
  /** Puts a message on a worker's queue. */
  enqueue: Enqueue;
  /** How long a change waits before it is sent to IndexNow (INDEXNOW_DELAY_SECONDS; LIMITS.indexNowDelaySeconds by default). */
  indexNowDelaySeconds?: number;
}
