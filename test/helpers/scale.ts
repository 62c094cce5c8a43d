import { performance } from 'node:perf_hooks';
import type { WorkerName } from '@cm/contract';
import type { TestStack } from './local';

/*
 * What the scale tests share: a stretch of work measured (messages each queue sent, DynamoDB's requests,
 * the time), and a daily schedule stopped midway.
 */

/**
 * Starts measuring: `end()` answers, for each name of `queues`, the messages its queue was sent since,
 * and the DynamoDB requests and the milliseconds since.
 */
export function measureStretch<N extends string>(t: TestStack, queues: Record<N, WorkerName>) {
  const sent = () =>
    Object.fromEntries(Object.entries<WorkerName>(queues).map(([name, q]) => [name, t.stack.queues[q].sent]));
  const before = { sent: sent(), requests: t.stack.dynamo.requests(), at: performance.now() };
  return {
    end(): Record<N, number> & { dynamodb_requests: number; wall_ms: number } {
      const now = sent();
      const messages = Object.fromEntries(
        Object.keys(queues).map((name) => [name, (now[name] ?? 0) - (before.sent[name] ?? 0)]),
      );
      return {
        ...(messages as Record<N, number>),
        dynamodb_requests: t.stack.dynamo.requests() - before.requests,
        wall_ms: Math.round(performance.now() - before.at),
      };
    },
  };
}

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
