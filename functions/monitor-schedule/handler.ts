import { enqueue, getStore, scheduled } from '@cm/runtime';
import { scheduleMonitoring } from '@cm/tools';

/**
 * The daily EventBridge schedule: one read of the site sequence, then a plan message per block of sites
 * (the plan worker queues each site's monitoring run, and its rank checks of the day the rule fired for).
 */
export const handler = scheduled('monitoring planned', (_observation, at) =>
  scheduleMonitoring({ store: getStore(), enqueue, now: at }),
);
