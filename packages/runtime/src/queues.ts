import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueUrlEnvName, type Enqueue, type WorkerName } from '@cm/contract';
import { getConfig } from './config';

/** Where queue messages go: SQS on AWS, the local stack's in-process queues on one machine. */
export interface QueueTransport {
  /** `delaySeconds` keeps the message back before its first delivery (SQS allows up to 900). */
  send(queue: WorkerName, body: string, delaySeconds?: number): Promise<void>;
}

let transport: QueueTransport | undefined;

/** The local stack plugs its in-process queues in here; unset, messages go to SQS. */
export function setQueueTransport(next: QueueTransport | undefined): void {
  transport = next;
}

/** The queue URL a function was given for a worker, e.g. `RELINK_QUEUE_URL`. */
const queueUrl = (queue: WorkerName): string => {
  const url = getConfig().queueUrls[queue];
  if (!url) throw new Error(`${queueUrlEnvName(queue)} is not set`);
  return url;
};

function sqsTransport(): QueueTransport {
  const client = new SQSClient({});
  return {
    send: async (queue, body, delaySeconds) => {
      await client.send(
        new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body, DelaySeconds: delaySeconds }),
      );
    },
  };
}

export const enqueue: Enqueue = async (queue, message, delaySeconds) => {
  transport ??= sqsTransport();
  await transport.send(queue, JSON.stringify(message), delaySeconds);
};
