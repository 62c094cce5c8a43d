import { MonitorPlanMessage } from '@cm/contract';
import { enqueue, getStore, sqsWorker } from '@cm/runtime';
import { planMonitoring } from '@cm/tools';

/** Reads a block of sites the daily schedule planned and queues each one's monitoring run. */
export const handler = sqsWorker(MonitorPlanMessage, async (message) => {
  await planMonitoring({ store: getStore(), enqueue }, message);
});
