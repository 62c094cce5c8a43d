import { sweepSchedules } from '@cm/publishing';
import { publishingContext, scheduled } from '@cm/runtime';

/**
 * Every minute (EventBridge): the pages' scheduled changes due by the time the rule fired are applied
 * (published, or taken down), each once, with the relink a publish or notify of the state would queue
 * and the IndexNow announcement of a site at its own domain.
 */
export const handler = scheduled('page schedules swept', (_observation, at) => sweepSchedules(publishingContext(), at));
