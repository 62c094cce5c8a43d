import { enqueue, getStore } from '@cm/runtime';
import { scheduleMonitoring } from '@cm/tools';

/** The daily EventBridge schedule: queues one monitoring run per site domain and active competitor. */
export const handler = async (): Promise<{ queued: number }> => ({ queued: await scheduleMonitoring(getStore(), enqueue, new Date()) });
