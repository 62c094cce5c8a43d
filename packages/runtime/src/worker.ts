import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod/mini';
import { isJsonObject, validationError, type QueueMessages, type WorkerName } from '@cm/contract';
import { OutOfTime } from '@cm/providers';
import { timeLimit } from '@cm/providers/time-limit';
import { checkEnvironment } from './config';
import { observationOf, observed, type Observation } from './observability';

/**
 * What a worker keeps of its time for settling what it started: after its deadline no paid call starts
 * and those in flight are cut, and their holds and ledger lines are written in this (a few writes).
 */
export const WORKER_SETTLE_MS = 10_000;

/** Nothing more of a schema whose output is exactly `M`; any other schema fails to match `never`. */
type ParsesExactly<S extends z.ZodMiniType, M> = [z.output<S>] extends [M]
  ? [M] extends [z.output<S>]
    ? unknown
    : never
  : never;

/**
 * A queue worker: each record's body is parsed with the contract's schema and handled on its own,
 * logging with the record's message id (and site); the failed ones, and only those, are reported back
 * to SQS (partial batch failures), so they are retried and, after the last attempt, land in the
 * dead-letter queue. The invocation's deadline (its time left less WORKER_SETTLE_MS) is each handler's
 * to give its meter; a record not started by then fails at once, so SQS delivers it again. The schema's
 * output must be the queue's declared message (QUEUES), what its senders are typed to send.
 */
export function sqsWorker<W extends WorkerName, S extends z.ZodMiniType<QueueMessages[W]>>(
  worker: W,
  schema: S & ParsesExactly<S, QueueMessages[W]>,
  handle: (
    message: QueueMessages[W],
    observation: Observation,
    deadline: AbortSignal,
    record: SQSRecord,
  ) => Promise<void>,
) {
  checkEnvironment();
  const processor = new BatchProcessor(EventType.SQS);
  const onRecord = (invocation: Observation, deadline: AbortSignal) => async (record: SQSRecord) => {
    const observation = invocation.child({
      queue: worker,
      message_id: record.messageId,
      receive_count: Number(record.attributes.ApproximateReceiveCount),
    });
    try {
      if (deadline.aborted) throw new OutOfTime();
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        throw new Error(`message ${record.messageId} is not JSON`);
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) throw validationError('message', parsed.error.issues);
      const message: unknown = parsed.data;
      if (isJsonObject(message) && typeof message.site_id === 'number') observation.keys({ site_id: message.site_id });
      await handle(parsed.data, observation, deadline, record);
    } catch (error) {
      observation.log.error('message failed; SQS delivers it again, or moves it to the dead-letter queue', { error });
      throw error;
    }
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(observed<SQSEvent, SQSBatchResponse>())
    .handler(async (event, context) => {
      const deadline = timeLimit(context.getRemainingTimeInMillis() - WORKER_SETTLE_MS);
      try {
        return await processPartialResponse(event, onRecord(observationOf(context), deadline.signal), processor, {
          context,
          throwOnFullBatchFailure: false,
        });
      } finally {
        deadline.clear();
      }
    });
}

/**
 * A scheduled (EventBridge) function: its run, with an Observation and the time the rule fired for (the
 * event's `time`: a retried event keeps it), and a log line of what it did.
 */
export function scheduled<R extends Record<string, unknown>>(
  name: string,
  run: (observation: Observation, at: Date) => Promise<R>,
) {
  checkEnvironment();
  return middy<ScheduledEvent, R, Error, Context>()
    .use(observed<ScheduledEvent, R>())
    .handler(async (event, context) => {
      const observation = observationOf(context);
      const fired = Date.parse(event.time);
      const result = await run(observation, Number.isNaN(fired) ? new Date() : new Date(fired));
      // A run that found nothing to do (every count 0: the minute's sweep, mostly) is no news.
      const didSomething = Object.values(result).some((value) => value !== 0);
      if (didSomething) observation.log.info(name, result);
      else observation.log.debug(name, result);
      return result;
    });
}
