import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE_SETTINGS, visibilityTimeoutSeconds, WORKERS, type WorkerName } from '@cm/contract';
import type { Alarms } from './alarms';
import type { FunctionFactory } from './function';
import { pascal } from './ids';

/** A queue per worker, delivering as its {@link QUEUE_SETTINGS} say, with a dead-letter queue that alarms when a message lands in it. */
export function workerQueues(scope: Construct, alarms: Alarms): Record<WorkerName, Queue> {
  const queue = (worker: WorkerName) => {
    const deadLetters = new Queue(scope, `${pascal(worker)}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    alarms.add(
      `${pascal(worker)}DeadLetterAlarm`,
      `${worker} messages failed every attempt and wait in the dead-letter queue`,
      deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
    );
    return new Queue(scope, `${pascal(worker)}Queue`, {
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(worker)),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: QUEUE_SETTINGS[worker].maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  };
  // In WORKERS order, the order the stack has always made them in.
  return {
    relink: queue('relink'),
    research: queue('research'),
    monitor: queue('monitor'),
    'monitor-plan': queue('monitor-plan'),
  };
}

/** Each queue's worker, fed in batches of its queue's batch size and reporting which records failed, so only those come back. */
export function queueWorkers(
  queues: Record<WorkerName, Queue>,
  lambda: FunctionFactory,
): Map<WorkerName, NodejsFunction> {
  return new Map(
    WORKERS.map((worker) => {
      const { batchSize, timeoutSeconds } = QUEUE_SETTINGS[worker];
      const fn = lambda(`${worker}-worker`, Duration.seconds(timeoutSeconds));
      fn.addEventSource(new SqsEventSource(queues[worker], { batchSize, reportBatchItemFailures: true }));
      return [worker, fn];
    }),
  );
}
