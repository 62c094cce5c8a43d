import type { TestStack } from './local';

/**
 * A daily schedule stopped midway: its invocation dies after `plans` plan messages (Lambda would retry
 * it), and a plan worker's `nth` send to `queue` fails, once (SQS delivers that plan again, which sends
 * its block again). The function it answers puts both sends back.
 */
export function stopScheduleMidway(t: TestStack, plans: number, queue: 'monitor' | 'rank', nth: number): () => void {
  const planQueue = t.stack.queues['monitor-plan'];
  const runQueue = t.stack.queues[queue];
  const sendPlan = planQueue.send.bind(planQueue);
  const sendRun = runQueue.send.bind(runQueue);
  let plansSent = 0;
  const schedule = jest.spyOn(planQueue, 'send').mockImplementation(async (body, delayMs) => {
    if (++plansSent > plans) throw new Error('the schedule was stopped');
    return sendPlan(body, delayMs);
  });
  let runsSent = 0;
  const plan = jest.spyOn(runQueue, 'send').mockImplementation(async (body, delayMs) => {
    if (++runsSent === nth) throw new Error('the plan worker was stopped');
    return sendRun(body, delayMs);
  });
  return () => {
    schedule.mockRestore();
    plan.mockRestore();
  };
}
