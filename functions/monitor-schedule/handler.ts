import { enqueue, getStore, scheduled } from '@cm/runtime';
import { scheduleMonitoring } from '@cm/tools';

/** The daily EventBridge schedule: queues one monitoring run per site domain and active competitor. */
export const handler = scheduled('monitoring queued', async () => ({ queued: await scheduleMonitoring(getStore(), enqueue, new Date()) }));
