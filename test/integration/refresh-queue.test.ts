import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RefreshEntry } from '@cm/contract';
import type { Store } from '@cm/store';
import { InvalidCursor } from '@cm/store/errors';
import { encodeCursor } from '../../packages/store/src/cursor';
import { refreshEntrySk, refreshPointerKey, refreshQueuePartition } from '../../packages/store/src/keys';
import { startTestStack, type TestStack } from '../helpers/local';

/* A site's refresh queue: most clicks at risk first by its keys, a re-flag replacing its page's entry, paged. */

let t: TestStack;
let store: Store;
beforeAll(async () => {
  t = await startTestStack();
  store = t.store;
}, 60_000);
afterAll(() => t.stop());

const entryOf = (id: string, clicksAtRisk: number): RefreshEntry => ({
  page: { type: 'article', id },
  url: `https://example.com/articles/${id}`,
  cause: 'unknown',
  flagged_on: '2026-10-28',
  clicks_before: 100 + clicksAtRisk,
  clicks_now: 100,
  clicks_at_risk: clicksAtRisk,
  refreshed_at: null,
  measured: null,
});

it('lists most clicks at risk first, a page flagged again in its new place only, with a cursor', async () => {
  const site = (await t.newSite('queue-order')).siteId;
  await store.refreshQueue.flag(site, entryOf('a', 5));
  await store.refreshQueue.flag(site, entryOf('b', 1200));
  await store.refreshQueue.flag(site, entryOf('c', 40));
  // Flagged again at other clicks: its entry moves; at the same, it is replaced in place.
  await store.refreshQueue.flag(site, entryOf('a', 900));
  await store.refreshQueue.flag(site, entryOf('c', 40));
  const first = await store.refreshQueue.list(site, { limit: 2 });
  expect(first.entries.map((e) => [e.page.id, e.clicks_at_risk])).toEqual([
    ['b', 1200],
    ['a', 900],
  ]);
  const rest = await store.refreshQueue.list(site, { limit: 2, cursor: first.next_cursor ?? '' });
  expect(rest.entries.map((e) => [e.page.id, e.clicks_at_risk])).toEqual([['c', 40]]);
  expect((await store.refreshQueue.all(site)).orphans).toEqual([]);
});

it('marks a queued page refreshed and measures it; a page not in the queue is left alone', async () => {
  const site = (await t.newSite('queue-measure')).siteId;
  await store.refreshQueue.flag(site, entryOf('a', 30));
  expect(
    await store.refreshQueue.markRefreshed(site, { type: 'article', id: 'other' }, '2026-10-29T10:00:00.000Z'),
  ).toBe(false);
  expect(await store.refreshQueue.markRefreshed(site, { type: 'article', id: 'a' }, '2026-10-29T10:00:00.000Z')).toBe(
    true,
  );
  const [queued] = (await store.refreshQueue.all(site)).entries;
  expect(queued?.entry.refreshed_at).toBe('2026-10-29T10:00:00.000Z');
  await store.refreshQueue.measure(site, queued?.sk ?? '', {
    outcome: 'recovered',
    clicks_after: 120,
    measured_on: '2026-11-26',
  });
  // An entry a re-flag replaced is measured no more (its old key names nothing).
  await store.refreshQueue.measure(site, 'Q#gone', {
    outcome: 'recovered',
    clicks_after: 1,
    measured_on: '2026-11-26',
  });
  expect((await store.refreshQueue.list(site, { limit: 5 })).entries).toEqual([
    {
      ...entryOf('a', 30),
      refreshed_at: '2026-10-29T10:00:00.000Z',
      measured: { outcome: 'recovered', clicks_after: 120, measured_on: '2026-11-26' },
    },
  ]);
});

it('finds and drops an entry no pointer names (a re-flag cut short), and a flag that lost its page to another leaves no second entry', async () => {
  const site = (await t.newSite('queue-orphans')).siteId;
  await store.refreshQueue.flag(site, entryOf('a', 10));
  // As if a re-flag put its entry and stopped before moving the pointer.
  const orphan = refreshEntrySk(70, 'article', 'a');
  await t.db.send(
    new PutCommand({
      TableName: t.stack.tableName,
      Item: { pk: refreshQueuePartition(site), sk: orphan, entry: entryOf('a', 70) },
    }),
  );
  const { entries, orphans } = await store.refreshQueue.all(site);
  expect(entries.map((e) => e.entry.clicks_at_risk)).toEqual([10]);
  expect(orphans).toEqual([orphan]);
  await store.refreshQueue.dropOrphans(site, orphans);
  expect((await store.refreshQueue.list(site, { limit: 5 })).entries.map((e) => e.clicks_at_risk)).toEqual([10]);

  // Two flags of one page at once: one moves the pointer, the other's entry is deleted again.
  await Promise.all([store.refreshQueue.flag(site, entryOf('b', 20)), store.refreshQueue.flag(site, entryOf('b', 25))]);
  const after = await store.refreshQueue.all(site);
  expect(after.orphans).toEqual([]);
  expect(after.entries.filter((e) => e.entry.page.id === 'b')).toHaveLength(1);
});

it('never undoes a refresh a publish marked between the queue read and the flag, in place or moved', async () => {
  const site = (await t.newSite('queue-refresh-race')).siteId;
  const refreshedAt = '2026-10-29T10:00:00.000Z';
  for (const [id, again] of [
    ['same', 30],
    ['moved', 45],
  ] as const) {
    await store.refreshQueue.flag(site, entryOf(id, 30));
    await store.refreshQueue.all(site); // the evaluation's read
    expect(await store.refreshQueue.markRefreshed(site, { type: 'article', id }, refreshedAt)).toBe(true);
    await store.refreshQueue.flag(site, entryOf(id, again));
  }
  // A pointer whose entry is gone (a re-flag's delete between its read and the mark, twice): not marked.
  await t.db.send(
    new PutCommand({
      TableName: t.stack.tableName,
      Item: { ...refreshPointerKey(site, 'article', 'ghost'), entry_sk: refreshEntrySk(5, 'article', 'ghost') },
    }),
  );
  expect(await store.refreshQueue.markRefreshed(site, { type: 'article', id: 'ghost' }, refreshedAt)).toBe(false);
  await t.db.send(
    new DeleteCommand({ TableName: t.stack.tableName, Key: refreshPointerKey(site, 'article', 'ghost') }),
  );
  const { entries, orphans } = await store.refreshQueue.all(site);
  expect(orphans).toEqual([]);
  expect(entries.map((q) => q.entry)).toEqual([
    { ...entryOf('moved', 30), refreshed_at: refreshedAt },
    { ...entryOf('same', 30), refreshed_at: refreshedAt },
  ]);
  // Measured, the entry is judged afresh: a new flag replaces it.
  const moved = entries.find((q) => q.entry.page.id === 'moved');
  await store.refreshQueue.measure(site, moved?.sk ?? '', {
    outcome: 'recovered',
    clicks_after: 9,
    measured_on: '2026-11-26',
  });
  await store.refreshQueue.flag(site, entryOf('moved', 50));
  expect(
    (await store.refreshQueue.all(site)).entries.map((q) => [
      q.entry.page.id,
      q.entry.clicks_at_risk,
      q.entry.refreshed_at,
    ]),
  ).toEqual([
    ['moved', 50, null],
    ['same', 30, refreshedAt],
  ]);
});

it("refuses a cursor naming no entry of the queue (a pointer's key, a key of another shape) as a bad cursor", async () => {
  const site = (await t.newSite('queue-cursor')).siteId;
  await store.refreshQueue.flag(site, entryOf('a', 30));
  for (const position of ['P#article#a', 'Q#', 'Q#12#article#a', 'Q#999999999969#page#a', 'ROW#cm_pages#1'])
    await expect(store.refreshQueue.list(site, { limit: 5, cursor: encodeCursor([position]) })).rejects.toBeInstanceOf(
      InvalidCursor,
    );
  const sk = (await store.refreshQueue.all(site)).entries[0]?.sk ?? '';
  expect(await store.refreshQueue.list(site, { limit: 5, cursor: encodeCursor([sk]) })).toEqual({
    entries: [],
    next_cursor: null,
  });
});
