import { enqueue, getStore, scheduled } from '@cm/runtime';
import { scheduleMonitoring } from '@cm/tools';

/** The daily EventBridge schedule: one read of the site sequence, then a plan message per block of sites (the plan worker queues each site's run). */
export const handler = scheduled('monitoring planned', () =>
  scheduleMonitoring({ store: getStore(), enqueue, now: new Date() }),
);
