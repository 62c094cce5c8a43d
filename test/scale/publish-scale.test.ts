import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { pageId } from '@cm/core';
import { article, useTestStack } from '../helpers/local';

/* Publishing and notify at the sizes and bursts a real site brings (issue 36): no item grows with a page's links, no burst is a 5xx. */

const t = useTestStack();

const notify = (body: Record<string, unknown>) => t.call('POST', '/api/content/notify', body);
const publishArticle = async (slug: string, extra: Record<string, unknown> = {}) =>
  (await t.call('POST', '/articles', article(slug, extra))).body.id as string;
const suppressedOf = async (id: string): Promise<string[]> =>
  ((await t.call('GET', `/articles/${id}`)).body.suppressed_links as { id: string }[]).map((link) => link.id);
const state = async (id: string) => {
  const page = (await t.call('GET', `/articles/${id}`)).body;
  return { status: page.status, live: page.live };
};

/** About what DynamoDB counts of an item's size: names and values in bytes, binaries by their length. */
const itemBytes = (value: unknown): number => {
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  if (value instanceof Set) return [...value].reduce<number>((sum, v) => sum + itemBytes(v), 0);
  if (Array.isArray(value)) return value.reduce<number>((sum, v) => sum + itemBytes(v), 0);
  if (value && typeof value === 'object')
    return Object.entries(value).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + itemBytes(v), 0);
  return 0;
};

/** The largest item of the site's partition, by what DynamoDB counts of its size, but for a page's document (what the editor sent, gzipped, chunked past 300 KB). */
async function largestPageItemBytes(): Promise<number> {
  let largest = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await t.db.send(
      new QueryCommand({
        TableName: t.stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `SITE#${t.siteId}` },
        ExclusiveStartKey: start,
      }),
    );
    for (const { doc: _doc, ...item } of out.Items ?? []) largest = Math.max(largest, itemBytes(item));
    start = out.LastEvaluatedKey;
  } while (start);
  return largest;
}

describe('a publish with 10,000 related articles (issue 36)', () => {
  it('stores whole on the first try, lists the 9,990 not yet published as suppressed, and relinks each when it appears', async () => {
    // 10 pages exist; 9,990 are linked to before they exist.
    const existing = await Promise.all(Array.from({ length: 10 }, (_v, i) => publishArticle(`rel-live-${i}`)));
    const later = Array.from({ length: 9_990 }, (_v, i) => pageId(t.siteId, 'article', `rel-later-${i}`));
    const related = [...existing, ...later];
    const first = await t.call('POST', '/articles', article('rel-hub', { related_article_ids: related }));
    expect(first.status).toBe(201);
    const hub = first.body.id as string;
    const read = (await t.call('GET', `/articles/${hub}`)).body;
    expect(read.related_article_ids).toEqual(related);
    expect((read.suppressed_links as { id: string }[]).map((link) => link.id)).toEqual([...later].sort());
    // No item of the site grew with the links: the page item has a hash of them, each link is an item of its own.
    expect(await largestPageItemBytes()).toBeLessThan(4 * 1024);

    // The identical republish changes nothing and costs one request (the key's look-up just made, as in a warm Lambda).
    await t.call('GET', `/articles/${hub}`);
    const before = t.stack.dynamo.requests();
    expect((await t.call('POST', '/articles', article('rel-hub', { related_article_ids: related }))).status).toBe(200);
    expect(t.stack.dynamo.requests() - before).toBe(1);

    // A page the hub linked to before it existed: its first publish gives the hub its link back.
    await publishArticle('rel-later-17');
    await t.stack.drain();
    const suppressed = await suppressedOf(hub);
    expect(suppressed).toHaveLength(9_989);
    expect(suppressed).not.toContain(later[17]);

    // Dropping the links removes their items with them.
    expect((await t.call('POST', '/articles', article('rel-hub', { related_article_ids: existing }))).status).toBe(200);
    expect(await suppressedOf(hub)).toEqual([]);
  });
});

describe('concurrent notifies of one page (issue 36)', () => {
  it('converge on the latest-dated state: 50 at once, 20 trials, no 5xx, the linking page follows', async () => {
    for (let trial = 0; trial < 20; trial++) {
      const target = await publishArticle(`n-burst-${trial}`);
      const linker = await publishArticle(`n-burst-linker-${trial}`, { related_article_ids: [target] });
      // Distinct past dates, shuffled; the latest alternates between a take-down and a bring-back.
      const latestUp = trial % 2 === 1;
      const base = Date.now() - 60_000;
      const sends = Array.from({ length: 50 }, (_v, i) => {
        const up = i === 49 ? latestUp : i % 2 === 0;
        const change =
          i % 3 === 0 ? { status: up ? 'published' : 'draft' } : { action: up ? 'published' : 'unpublished' };
        return { id: target, type: 'article', ...change, updated_at: new Date(base + i * 7).toISOString() };
      }).sort(() => Math.random() - 0.5);
      const replies = await Promise.all(sends.map((body) => notify(body)));
      expect(replies.filter((reply) => reply.status !== 200).map((reply) => reply.body)).toEqual([]);
      expect(await state(target)).toEqual({ status: latestUp ? 'published' : 'draft', live: latestUp });
      await t.stack.drain();
      expect(await suppressedOf(linker)).toEqual(latestUp ? [] : [target]);
    }
    expect(t.stack.queues.relink.deadLetters).toEqual([]);
  });
});
