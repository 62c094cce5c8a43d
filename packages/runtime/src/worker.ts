import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import { validationError } from '@cm/contract';

/**
 * A queue worker: each record's body is parsed with the contract's schema and handled on its own;
 * the failed ones, and only those, are reported back to SQS (partial batch failures), so they are
 * retried and, after the last attempt, land in the dead-letter queue.
 */
export function sqsWorker<S extends z.ZodType>(schema: S, handle: (message: z.output<S>, record: SQSRecord) => Promise<void>) {
  const processor = new BatchProcessor(EventType.SQS);
  const onRecord = async (record: SQSRecord) => {
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      throw new Error(`message ${record.messageId} is not JSON`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw validationError('message', parsed.error.issues);
    await handle(parsed.data, record);
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>().handler((event, context) =>
    processPartialResponse(event, onRecord, processor, { context, throwOnFullBatchFailure: false }),
  );
}
