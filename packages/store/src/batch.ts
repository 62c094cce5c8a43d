import type { BatchWriteCommandInput, DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { errorFacts } from './errors';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Whether a write failed only because its condition did not hold. */
export const conditionFailed = (error: unknown): boolean =>
  errorFacts(error).name === 'ConditionalCheckFailedException';

const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));

/** Writes in batches of 25, retrying what DynamoDB leaves unprocessed. */
export async function batchWrite(db: DynamoDBDocumentClient, table: string, requests: WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequest[] = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB left batch writes unprocessed after retries');
      if (attempt > 0) await pause(attempt);
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = out.UnprocessedItems?.[table] ?? [];
    }
  }
}

/** Every item a query matches: one Query per page of up to 1 MB, until the last. */
export async function queryAll(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Reads by key in batches of 100, retrying unprocessed keys. */
export async function batchGet(
  db: DynamoDBDocumentClient,
  table: string,
  keys: Record<string, unknown>[],
  projection?: { expression: string; names: Record<string, string> },
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let pending = keys.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB left batch reads unprocessed after retries');
      if (attempt > 0) await pause(attempt);
      const out = await db.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(options.consistent ? { ConsistentRead: true } : {}),
              ...(projection
                ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
                : {}),
            },
          },
        }),
      );
      items.push(...(out.Responses?.[table] ?? []));
      pending = out.UnprocessedKeys?.[table]?.Keys ?? [];
    }
  }
  return items;
}
