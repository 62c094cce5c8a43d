import type { BatchWriteCommandInput, DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Key } from './keys';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));

/** Batch requests one call has in flight at most: a large batch takes a fraction of the time, and never floods the table. */
const BATCHES_IN_FLIGHT = 8;

/** The parts of `items` of `size` each. */
const partsOf = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_v, i) => items.slice(i * size, (i + 1) * size));

/** Writes in batches of 25, a few at a time, retrying what DynamoDB leaves unprocessed. */
export async function batchWrite(db: DynamoDBDocumentClient, table: string, requests: WriteRequest[]): Promise<void> {
  await mapLimit(partsOf(requests, 25), BATCHES_IN_FLIGHT, async (part) => {
    let pending: WriteRequest[] = part;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB left batch writes unprocessed after retries');
      if (attempt > 0) await pause(attempt);
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = out.UnprocessedItems?.[table] ?? [];
    }
  });
}

/** Every item a query matches (the first `max`, when given): one Query per page of up to 1 MB, until the last. */
export async function queryAll(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  max = Infinity,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start && items.length < max);
  return items.slice(0, max);
}

/**
 * Reads by key in batches of 100, a few at a time, retrying unprocessed keys. A key asked twice is read
 * once (DynamoDB refuses a whole batch that holds a key twice), and its item answered once.
 */
export async function batchGet(
  db: DynamoDBDocumentClient,
  table: string,
  keys: readonly Key[],
  projection?: { expression: string; names: Record<string, string> },
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const distinct = [...new Map(keys.map((key) => [`${key.pk}\n${key.sk}`, key])).values()];
  await mapLimit(partsOf(distinct, 100), BATCHES_IN_FLIGHT, async (part) => {
    let pending: Record<string, unknown>[] = part;
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
  });
  return items;
}

/** Runs `fn` over the items with at most `limit` at once, keeping their order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const queue = items.entries();
  const worker = async () => {
    for (const [i, item] of queue) out[i] = await fn(item, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
