import { MonitorPlanMessage } from '@cm/contract';
import { enqueue, sqsWorker } from '@cm/runtime';
import { planMonitoring } from '@cm/tools';

/** Queues the monitoring run of each site of a block the daily schedule planned. */
export const handler = sqsWorker(MonitorPlanMessage, async (message) => {
  await planMonitoring({ enqueue }, message);
});
