import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod/mini';
import { isJsonObject, validationError } from '@cm/contract';
import { observationOf, observed, type Observation } from './observability';

/**
 * A queue worker: each record's body is parsed with the contract's schema and handled on its own,
 * logging with the record's message id (and site); the failed ones, and only those, are reported back
 * to SQS (partial batch failures), so they are retried and, after the last attempt, land in the
 * dead-letter queue.
 */
export function sqsWorker<S extends z.ZodMiniType>(
  schema: S,
  handle: (message: z.output<S>, observation: Observation, record: SQSRecord) => Promise<void>,
) {
  const processor = new BatchProcessor(EventType.SQS);
  const onRecord = (invocation: Observation) => async (record: SQSRecord) => {
    const observation = invocation.child({
      message_id: record.messageId,
      receive_count: Number(record.attributes.ApproximateReceiveCount),
    });
    try {
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
      await handle(parsed.data, observation, record);
    } catch (error) {
      observation.log.error('message failed; SQS delivers it again, or moves it to the dead-letter queue', { error });
      throw error;
    }
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(observed<SQSEvent, SQSBatchResponse>())
    .handler((event, context) =>
      processPartialResponse(event, onRecord(observationOf(context)), processor, {
        context,
        throwOnFullBatchFailure: false,
      }),
    );
}

/**
 * A scheduled (EventBridge) function: its run, with an Observation and the time the rule fired for (the
 * event's `time`: a retried event keeps it), and a log line of what it did.
 */
export function scheduled<R extends Record<string, unknown>>(
  name: string,
  run: (observation: Observation, at: Date) => Promise<R>,
) {
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
