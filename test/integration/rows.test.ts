import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { RowConflict } from '@cm/store';
import { rowKey } from '../../packages/store/src/keys';
import { useTestStack } from '../helpers/local';
import { keywordFields } from '../helpers/rows';
import { given } from '../helpers/client';

/* The cm_* row store beneath the db tools: unique values held by one row, also when a writer dies midway. */

const t = useTestStack();

const keyword = (name: string) => keywordFields(name);

it('holds each unique value by exactly one row under concurrent overlapping inserts', async () => {
  const { siteId } = await t.newSite();
  const names = Array.from({ length: 20 }, (_v, i) => `shoe ${i}`);
  const batches = await Promise.all(
    [0, 5, 10].map((offset) =>
      t.store.rows.insertMany(siteId, 'cm_keywords', names.slice(offset, offset + 10).map(keyword)),
    ),
  );
  const created = batches.flatMap((b) => b.created);
  expect(created.map((row) => row.keyword).sort()).toEqual([...names].sort());
  for (const batch of batches) {
    for (const conflict of batch.conflicts) {
      const owner = given(
        created.find((row) => row.keyword === conflict.fields.keyword),
        'the find',
      );
      expect(conflict.existingId).toBe(owner.id);
    }
  }
  const ids = await t.store.rows.idsByUnique(
    siteId,
    'cm_keywords',
    names.map((n) => `US/en#${n}`),
  );
  expect(ids.size).toBe(20);
});

it('takes over a unique value whose row never appeared, once its writer has had a minute', async () => {
  const { siteId } = await t.newSite();
  // The row item is removed beneath the store, as if its writer died after the claim and before the row.
  const { db } = t;
  const remove = (id: number) =>
    db.send(new DeleteCommand({ TableName: t.stack.tableName, Key: rowKey(siteId, 'cm_keywords', id) }));

  const fresh = await t.store.rows.insert(siteId, 'cm_keywords', keyword('fresh'));
  await remove(fresh.id);
  // A writer that claimed the value a moment ago may still be writing its row: the value stays taken.
  await expect(t.store.rows.insert(siteId, 'cm_keywords', keyword('fresh'))).rejects.toBeInstanceOf(RowConflict);

  const stale = await t.store.rows.insert(
    siteId,
    'cm_keywords',
    keyword('stale'),
    new Date(Date.now() - 120_000).toISOString(),
  );
  await remove(stale.id);
  const taken = await t.store.rows.insert(siteId, 'cm_keywords', keyword('stale'));
  expect(taken.id).not.toBe(stale.id);
  expect((await t.store.rows.idsByUnique(siteId, 'cm_keywords', ['US/en#stale'])).get('US/en#stale')).toBe(taken.id);
});

it('keeps a field index in step with updates, and frees a unique value on delete', async () => {
  const { siteId } = await t.newSite();
  const row = await t.store.rows.insert(siteId, 'cm_keywords', { ...keyword('boots'), page_id: 7 });
  expect((await t.store.rows.byField(siteId, 'cm_keywords', 'page_id', 7)).map((r) => r.id)).toEqual([row.id]);
  await t.store.rows.update(siteId, 'cm_keywords', row.id, { page_id: 8 });
  expect(await t.store.rows.byField(siteId, 'cm_keywords', 'page_id', 7)).toEqual([]);
  expect((await t.store.rows.byField(siteId, 'cm_keywords', 'page_id', 8)).map((r) => r.id)).toEqual([row.id]);
  await t.store.rows.update(siteId, 'cm_keywords', row.id, { page_id: null });
  expect(await t.store.rows.byField(siteId, 'cm_keywords', 'page_id', 8)).toEqual([]);
  expect(await t.store.rows.update(siteId, 'cm_keywords', 9999, { page_id: 1 })).toBeNull();

  expect(await t.store.rows.delete(siteId, 'cm_keywords', row.id)).toMatchObject({ keyword: 'boots' });
  expect(await t.store.rows.delete(siteId, 'cm_keywords', row.id)).toBeNull();
  expect((await t.store.rows.insert(siteId, 'cm_keywords', keyword('boots'))).keyword).toBe('boots');
});
