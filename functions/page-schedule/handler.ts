import { sweepSchedules } from '@cm/publishing';
import { enqueue, getStore, scheduled } from '@cm/runtime';

/**
 * Every minute (EventBridge): the pages' scheduled changes due by the time the rule fired are applied
 * (published, or taken down), each once, with the relink a publish or notify of the state would queue.
 */
export const handler = scheduled('page schedules swept', (_observation, at) =>
  sweepSchedules({ store: getStore(), enqueue }, at),
);
