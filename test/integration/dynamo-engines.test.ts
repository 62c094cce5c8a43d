import {
  BatchGetCommand,
  BatchWriteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamoEngine, ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@cm/store';
import { batchGet } from '../../packages/store/src/batch';

/*
 * What the store relies on DynamoDB to do, on the engine DYNAMO_ENGINE selects: CI runs this file on
 * dynalite (the embedded default) and on Amazon DynamoDB Local, so an answer that differs between them
 * shows here. Where they differ, the store follows Amazon's engine, and the test says what each engine
 * does (docs/architecture/local-stack.md#the-two-engines lists the comparison).
 */

const TABLE = 'engine-test';
let dynamo: EmbeddedDynamo;
let db: DynamoDBDocumentClient;
const engine = dynamoEngine();

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, TABLE);
  db = createDocumentClient({ endpoint: dynamo.endpoint });
});
afterAll(async () => {
  db.destroy();
  await dynamo.close();
});

/** The error a request fails with: its name and message. */
async function failure(request: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await request;
  } catch (error) {
    if (error instanceof Error) return { name: error.name, message: error.message };
  }
  throw new Error('the request succeeded');
}

const put = (item: Record<string, unknown>) => db.send(new PutCommand({ TableName: TABLE, Item: item }));

it('runs on the engine DYNAMO_ENGINE names', () => {
  expect(dynamo.engine).toBe(engine);
});

it('fails a write whose condition does not hold with ConditionalCheckFailedException (the store tells a lost race by the name)', async () => {
  const out = await failure(
    db.send(
      new PutCommand({ TableName: TABLE, Item: { pk: 'C', sk: 'C' }, ConditionExpression: 'attribute_exists(pk)' }),
    ),
  );
  expect(out.name).toBe('ConditionalCheckFailedException');
});

it('fails an update of a path under a missing map with a ValidationException about the document path (the semaphore makes its map on it)', async () => {
  await put({ pk: 'M', sk: 'M' });
  const out = await failure(
    db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'M', sk: 'M' },
        UpdateExpression: 'SET leases.#h = :v',
        ExpressionAttributeNames: { '#h': 'h1' },
        ExpressionAttributeValues: { ':v': 1 },
      }),
    ),
  );
  expect(out.name).toBe('ValidationException');
  expect(out.message).toMatch(/document path/i);
});

it('ends a Query page at 1 MB with a LastEvaluatedKey, and the next page starts where it ended', async () => {
  const big = 'x'.repeat(40_000);
  for (let i = 0; i < 40; i++) await put({ pk: 'BIG', sk: String(i).padStart(3, '0'), big });
  const first = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': 'BIG' },
    }),
  );
  // 1 MB fits 26 whole items of about 40 KB; the one that crosses the line is the page's last, as on DynamoDB.
  expect(first.Count).toBe(27);
  expect(first.LastEvaluatedKey).toEqual({ pk: 'BIG', sk: '026' });
  const rest = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': 'BIG' },
      ExclusiveStartKey: first.LastEvaluatedKey,
    }),
  );
  expect(rest.Count).toBe(13);
  expect(rest.LastEvaluatedKey).toBeUndefined();
});

it('reads 40 items of 40 KB by key in one store call, whether the engine answers them at once or leaves keys unprocessed', async () => {
  const keys = Array.from({ length: 40 }, (_, i) => ({ pk: 'BATCH', sk: String(i).padStart(3, '0') }));
  for (const key of keys) await put({ ...key, big: 'x'.repeat(40_000) });
  const direct = await db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys } } }));
  // Amazon's engine answers up to 16 MB at once; dynalite stops sooner (here after 36 items) and leaves the rest unprocessed.
  expect(direct.UnprocessedKeys?.[TABLE]?.Keys?.length ?? 0).toBe(engine === 'dynamodb-local' ? 0 : 4);
  const items = await batchGet(db, TABLE, keys);
  expect(items.map((item) => item.sk).sort()).toEqual(keys.map((key) => key.sk));
});

it('refuses an item over 400 KB and keys over 2048 (partition) and 1024 (sort) bytes with a ValidationException', async () => {
  await put({ pk: 'S', sk: 'fits', big: 'x'.repeat(399_000) });
  const over = await failure(put({ pk: 'S', sk: 'over', big: 'x'.repeat(410_000) }));
  expect(over.message).toMatch(/Item size has exceeded the maximum allowed size/);
  // The store's client says it in its own terms, which the API answers 413, never 500.
  expect(over.name).toBe('ItemTooLarge');
  await put({ pk: 'p'.repeat(2048), sk: 's'.repeat(1024) });
  for (const item of [
    { pk: 'p'.repeat(2049), sk: 's' },
    { pk: 'p', sk: 's'.repeat(1025) },
  ]) {
    const out = await failure(put(item));
    expect(out.name).toBe('ValidationException');
    // The engines word it differently; both name the size.
    expect(out.message).toMatch(/size|bytes/i);
  }
});

it('refuses an empty string as a table key, and as an index key only on Amazon’s engine (the store never writes either)', async () => {
  expect((await failure(put({ pk: 'E', sk: '' }))).name).toBe('ValidationException');
  const indexKey = put({ pk: 'E', sk: 'index', gsi1pk: '', gsi1sk: 'x' });
  if (engine === 'dynamodb-local') expect((await failure(indexKey)).message).toMatch(/secondary index key/);
  else await expect(indexKey).resolves.toBeDefined();
});

it('refuses expression values and names the expression does not use, reserved words, and consistent reads on an index', async () => {
  await put({ pk: 'X', sk: 'X' });
  const update = (input: Partial<ConstructorParameters<typeof UpdateCommand>[0]>) =>
    failure(
      db.send(
        new UpdateCommand({ TableName: TABLE, Key: { pk: 'X', sk: 'X' }, UpdateExpression: 'SET v = :v', ...input }),
      ),
    );
  expect((await update({ ExpressionAttributeValues: { ':v': 1, ':w': 2 } })).message).toMatch(/unused in expressions/);
  expect(
    (await update({ ExpressionAttributeValues: { ':v': 1 }, ExpressionAttributeNames: { '#n': 'n' } })).message,
  ).toMatch(/unused in expressions/);
  expect(
    (await update({ UpdateExpression: 'SET status = :v', ExpressionAttributeValues: { ':v': 1 } })).message,
  ).toMatch(/reserved keyword/);
  const indexRead = await failure(
    db.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': 'x' },
        ConsistentRead: true,
      }),
    ),
  );
  expect(indexRead.message).toMatch(/Consistent reads are not supported on global secondary indexes/);
});

it('refuses more than 100 keys in BatchGetItem and 25 writes in BatchWriteItem, and duplicate keys (the store batches 100 and 25, each key once)', async () => {
  const keys = Array.from({ length: 101 }, (_, i) => ({ pk: 'B', sk: String(i) }));
  const [first] = keys as [{ pk: string; sk: string }];
  expect((await failure(db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys } } })))).name).toBe(
    'ValidationException',
  );
  const writes = keys.slice(0, 26).map((key) => ({ PutRequest: { Item: key } }));
  expect((await failure(db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: writes } })))).name).toBe(
    'ValidationException',
  );
  const duplicate = await failure(
    db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [first, first] } } })),
  );
  expect(duplicate.message).toMatch(/duplicates/);
});

it('runs TransactWriteItems with cancellation reasons on Amazon’s engine only (the store uses no transactions)', async () => {
  const out = await failure(
    db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: 'T', sk: '1' } } },
          {
            ConditionCheck: {
              TableName: TABLE,
              Key: { pk: 'T', sk: 'missing' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ],
      }),
    ),
  );
  expect(out.name).toBe(engine === 'dynamodb-local' ? 'TransactionCanceledException' : 'UnknownOperationException');
});
