import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { perWorker, QUEUES, visibilityTimeoutSeconds, WORKERS, type WorkerName } from '@cm/contract';
import { queueStalledAlarm, type Alarms } from './alarms';
import type { FunctionFactory } from './function';
import { pascal } from './ids';

/**
 * How long a queue keeps a message: SQS's most, 14 days, for source and dead-letter queues alike. A
 * standard queue counts from the first send, so a message that waited days in its source has that much
 * less in the dead-letter queue (which cannot keep it longer); the source's age alarm fires long before.
 */
export const MESSAGE_RETENTION = Duration.days(14);

/**
 * A queue per worker, delivering as its {@link QUEUES} say, with a dead-letter queue that alarms
 * when a message lands in it, and an alarm when it stops draining.
 */
export function workerQueues(scope: Construct, alarms: Alarms): Record<WorkerName, Queue> {
  const queue = (worker: WorkerName) => {
    const deadLetters = new Queue(scope, `${pascal(worker)}DeadLetterQueue`, {
      retentionPeriod: MESSAGE_RETENTION,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    alarms.add(
      `${pascal(worker)}DeadLetterAlarm`,
      `${worker} messages failed every attempt and wait in the dead-letter queue`,
      deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
    );
    const source = new Queue(scope, `${pascal(worker)}Queue`, {
      // SQS's longest: a message waits out a stopped worker's repair instead of expiring after the default 4 days.
      retentionPeriod: MESSAGE_RETENTION,
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(worker)),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: QUEUES[worker].maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    queueStalledAlarm(alarms, worker, pascal(worker), source);
    return source;
  };
  // In WORKERS order, the order the stack has always made them in.
  return perWorker(queue);
}

/**
 * Each queue's worker, fed in batches of its queue's batch size and reporting which records failed, so
 * only those come back; at most its maximum concurrency of invocations at once, the rest waiting in the queue.
 */
export function queueWorkers(
  queues: Record<WorkerName, Queue>,
  lambda: FunctionFactory,
): Map<WorkerName, NodejsFunction> {
  return new Map(
    WORKERS.map((worker) => {
      const { batchSize, timeoutSeconds, maxConcurrency } = QUEUES[worker];
      const fn = lambda(`${worker}-worker`, Duration.seconds(timeoutSeconds));
      fn.addEventSource(
        new SqsEventSource(queues[worker], { batchSize, reportBatchItemFailures: true, maxConcurrency }),
      );
      return [worker, fn];
    }),
  );
}
