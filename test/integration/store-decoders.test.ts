import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CorruptItem } from '@cm/store/errors';
import { budgetKey, jobKey, rowKey, siteSpendKey } from '../../packages/store/src/keys';
import { pageKey } from '../../packages/store/src/keys';
import { article, useTestStack } from '../helpers/local';
import { given } from '../helpers/client';

/*
 * Every item the store reads is decoded at its boundary: an item that is not what its kind must be (a bug
 * or a hand edit) is a CorruptItem naming its key, never a value of the wrong type passed on; through the
 * API it is a 500 in the one error shape, and the items beside it still read.
 */

const t = useTestStack();

const put = (item: Record<string, unknown>) => t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: item }));
const corrupt = (kind: string, key: { pk: string; sk: string }, path: string) =>
  expect.objectContaining({
    name: 'CorruptItem',
    kind,
    key: `${key.pk} ${key.sk}`,
    message: expect.stringContaining(path) as string,
  });

it('refuses a page item whose status is not a page status, naming its key, and 500s in the one shape', async () => {
  const published = await t.call('POST', '/articles', article('corrupt-status'));
  const key = pageKey(t.siteId, 'article', published.body.id);
  await t.db.send(
    new UpdateCommand({
      TableName: t.stack.tableName,
      Key: key,
      UpdateExpression: 'SET #status = :bad',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':bad': 'bogus' },
    }),
  );
  await expect(t.store.pages.get(t.siteId, 'article', published.body.id)).rejects.toEqual(
    corrupt('page', key, 'status'),
  );
  await expect(t.store.pages.get(t.siteId, 'article', published.body.id)).rejects.toBeInstanceOf(CorruptItem);
  const read = await t.call('GET', `/articles/${published.body.id}`);
  expect(read.status).toBe(500);
  expect(read.body).toMatchObject({ error: 'internal_error', code: 'internal_error' });
  const other = await t.call('POST', '/articles', article('beside-the-corrupt-one'));
  expect((await t.call('GET', `/articles/${other.body.id}`)).status).toBe(200);
});

it.each([
  ['without its version', 'REMOVE version', 'version'],
  ['whose store time is not text', 'SET stored_at = :bad', 'stored_at'],
])('refuses a page item %s: its live revision has no name', async (_case, change, path) => {
  const published = await t.call('POST', '/articles', article(`corrupt-${path}`));
  const key = pageKey(t.siteId, 'article', published.body.id);
  await t.db.send(
    new UpdateCommand({
      TableName: t.stack.tableName,
      Key: key,
      UpdateExpression: change,
      ...(change.includes(':bad') ? { ExpressionAttributeValues: { ':bad': 7 } } : {}),
    }),
  );
  await expect(t.store.pages.get(t.siteId, 'article', published.body.id)).rejects.toEqual(corrupt('page', key, path));
});

it('refuses a job whose input is not a research job input', async () => {
  const key = jobKey('job_corrupt');
  await put({
    ...key,
    job_id: 'job_corrupt',
    site_id: t.siteId,
    tool: 'research',
    status: 'queued',
    input: { mode: 'web' },
    created_at: '2026-11-25T00:00:00.000Z',
    updated_at: '2026-11-25T00:00:00.000Z',
  });
  await expect(t.store.jobs.get('job_corrupt', t.siteId)).rejects.toEqual(corrupt('job', key, 'input.query'));
});

it("refuses a cm_* row whose id is not an integer or that misses its table's fields, and keeps a row's fields in the order the table gave them", async () => {
  // DynamoDB keeps a map's attributes in no set order (dynalite keeps them as written): the decoder adds no order of its own.
  const good = await t.store.rows.insert(t.siteId, 'cm_topics', { name: 'in order', zeta: 1, alpha: 2 });
  const raw = await t.db.send(
    new GetCommand({ TableName: t.stack.tableName, Key: rowKey(t.siteId, 'cm_topics', good.id) }),
  );
  const asStored: unknown = raw.Item?.row;
  expect(typeof asStored === 'object' && asStored !== null ? Object.keys(asStored) : null).toEqual(
    Object.keys(given(await t.store.rows.get(t.siteId, 'cm_topics', good.id), 'the entry')),
  );
  const key = rowKey(t.siteId, 'cm_topics', 999_001);
  await put({ ...key, table: 'cm_topics', row: { id: 'x', name: 'topic', created_at: 'now', updated_at: 'now' } });
  await expect(t.store.rows.get(t.siteId, 'cm_topics', 999_001)).rejects.toEqual(corrupt('cm_topics row', key, 'id'));
  // Nor does the store write a row it could not read back.
  await expect(t.store.rows.insert(t.siteId, 'cm_keywords', { keyword: 'no metrics' })).rejects.toEqual(
    expect.objectContaining({
      name: 'CorruptItem',
      kind: 'cm_keywords row',
      message: expect.stringContaining('data_source'),
    }),
  );
  expect((await t.store.rows.select(t.siteId, 'cm_keywords', { keyword: 'no metrics' }, 10)).rows).toEqual([]);
});

it('refuses budget limits and spend counts that are not numbers', async () => {
  const { siteId } = await t.newSite('corrupt budget');
  await put({ ...budgetKey(siteId), daily_usd: 'ten' });
  await expect(t.store.budgets.limits(siteId)).rejects.toEqual(corrupt('budget', budgetKey(siteId), 'daily_usd'));
  const counter = siteSpendKey(siteId, '2026-11');
  await put({ ...counter, m_spent: 'lots' });
  await expect(t.store.budgets.windows({ siteId }, '2026-11-25')).rejects.toEqual(
    corrupt('spend counter', counter, 'm_spent'),
  );
});
