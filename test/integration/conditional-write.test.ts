import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient } from '@cm/store';
import { conditionalUpdate, conditionalWrite } from '../../packages/store/src/conditional';
import { Update } from '../../packages/store/src/update';

/*
 * The store's one conditional write, on the engine DYNAMO_ENGINE selects: a condition that held answers
 * the attributes the write returned, a false one answers `ok: false`, and any other error is thrown.
 */

const TABLE = 'conditional-test';
let dynamo: EmbeddedDynamo;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, TABLE);
  db = createDocumentClient({ endpoint: dynamo.endpoint });
});
afterAll(async () => {
  db.destroy();
  await dynamo.close();
});

const key = (name: string) => ({ pk: 'COND', sk: name });
const read = async (name: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: key(name) }))).Item;

it('answers a put, an update and a delete whose condition held with what they returned, and writes them', async () => {
  const absent = 'attribute_not_exists(pk)';
  const put = new PutCommand({ TableName: TABLE, Item: { ...key('a'), n: 1 }, ConditionExpression: absent });
  expect(await conditionalWrite(db, put)).toEqual({ ok: true, attributes: {} });

  const update = new Update().add('n', 2);
  update.when(`${update.name('n')} = ${update.value('was', 1)}`);
  const decode = (attributes: Record<string, unknown>) => ({ count: attributes.n });
  expect(await conditionalUpdate(db, TABLE, key('a'), update, { returns: 'ALL_NEW', decode })).toEqual({
    ok: true,
    attributes: { count: 3 },
  });

  const remove = new DeleteCommand({
    TableName: TABLE,
    Key: key('a'),
    ConditionExpression: 'n = :n',
    ExpressionAttributeValues: { ':n': 3 },
    ReturnValues: 'ALL_OLD',
  });
  expect(await conditionalWrite(db, remove)).toEqual({ ok: true, attributes: { ...key('a'), n: 3 } });
  expect(await read('a')).toBeUndefined();
});

it('answers ok: false for each kind of write whose condition was false, and writes nothing', async () => {
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...key('b'), n: 1 } }));
  const put = new PutCommand({
    TableName: TABLE,
    Item: { ...key('b'), n: 9 },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  expect(await conditionalWrite(db, put)).toEqual({ ok: false });

  const update = new Update().set('n', 9);
  update.when(update.absent('n'));
  const decode = jest.fn((attributes: Record<string, unknown>) => attributes);
  expect(await conditionalUpdate(db, TABLE, key('b'), update, { returns: 'ALL_NEW', decode })).toEqual({ ok: false });
  expect(decode).not.toHaveBeenCalled();

  const remove = new DeleteCommand({ TableName: TABLE, Key: key('b'), ConditionExpression: 'attribute_not_exists(n)' });
  expect(await conditionalWrite(db, remove)).toEqual({ ok: false });
  expect(await read('b')).toEqual({ ...key('b'), n: 1 });
});

it('throws every error but a false condition', async () => {
  // `status` is a reserved word: the engine refuses the expression itself (a ValidationException).
  const invalid = new UpdateCommand({
    TableName: TABLE,
    Key: key('c'),
    UpdateExpression: 'SET status = :v',
    ConditionExpression: 'attribute_not_exists(pk)',
    ExpressionAttributeValues: { ':v': 1 },
  });
  await expect(conditionalWrite(db, invalid)).rejects.toMatchObject({ name: 'ValidationException' });
  const missing = new PutCommand({
    TableName: 'no-such-table',
    Item: key('c'),
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  await expect(conditionalWrite(db, missing)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  expect(await read('c')).toBeUndefined();
});
