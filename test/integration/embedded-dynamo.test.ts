import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient } from '@cm/store';

/* The embedded DynamoDB counts and times the requests it answers: the benchmark tells DynamoDB's share of a request by it. */

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, 'embedded-test');
});
afterAll(() => dynamo.close());

it('gives each request it answered its operation and the time it took, in order', async () => {
  const db = createDocumentClient({ endpoint: dynamo.endpoint });
  const before = dynamo.requests();
  await db.send(new PutCommand({ TableName: 'embedded-test', Item: { pk: 'P', sk: 'S', n: 1 } }));
  await db.send(new GetCommand({ TableName: 'embedded-test', Key: { pk: 'P', sk: 'S' } }));
  expect(dynamo.requests() - before).toBe(2);
  expect(dynamo.operations().slice(before)).toEqual(['PutItem', 'GetItem']);
  const durations = dynamo.durations();
  expect(durations).toHaveLength(dynamo.requests());
  for (const ms of durations.slice(before)) {
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  }
});
