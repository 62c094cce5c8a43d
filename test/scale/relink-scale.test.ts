import { readerRecord } from '@cm/core';
import { storeLinker } from '../helpers/linkers';
import { article, useTestStack } from '../helpers/local';

const t = useTestStack();

const LINKERS = 5000;

// About 25,000 requests to the embedded DynamoDB: the longest file of the scale suite (npm run test:scale).

it(`relinks a page linked from ${LINKERS} pages completely, in bounded messages that form no chain, and clears relink_pending once all are done`, async () => {
  const target = (await t.call('POST', '/articles', article('popular'))).body.id as string;
  const now = new Date().toISOString();
  const ids: string[] = [];
  for (let i = 0; i < LINKERS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, LINKERS - i) }, async (_v, j) => {
        ids.push(await storeLinker(t, { slug: `linker-${i + j}`, target, now, related: true }));
      }),
    );
  }
  const { relink, 'relink-pages': relinkPages } = t.stack.queues;
  const sent = () => ({ relink: relink.sent, relinkPages: relinkPages.sent });
  const before = sent();

  const check = async (expectCopy: string, expectRelated: string[]) => {
    const wrong: string[] = [];
    for (let i = 0; i < ids.length; i += 100) {
      await Promise.all(
        ids.slice(i, i + 100).map(async (id) => {
          const page = readerRecord((await t.store.pages.get(t.siteId, 'article', id))!);
          if (
            page.type !== 'article' ||
            page.copy !== expectCopy ||
            page.related_article_ids.join() !== expectRelated.join()
          ) {
            wrong.push(id);
          }
        }),
      );
    }
    return wrong;
  };

  expect(
    (await t.call('POST', '/api/content/notify', { id: target, type: 'article', action: 'unpublished' })).body.relink,
  ).toBe('queued');
  await t.stack.drain();
  expect(await check('See it.', [])).toEqual([]);
  // One message planned it, and 100 linking pages went in each batch, none of which sent anything: no
  // chain for Lambda's recursive loop detection to cut (the local queues cut one as it does).
  expect(sent()).toEqual({ relink: before.relink + 1, relinkPages: before.relinkPages + LINKERS / 100 });
  for (const queue of [relink, relinkPages]) {
    expect(queue.recursiveInvocationsDropped).toBe(0);
    expect(queue.deadLetters).toEqual([]);
  }
  // Cleared once every batch was done.
  expect((await t.store.pageLive.liveState(t.siteId, 'article', target))!.relink_pending).toBeNull();

  // Through the API, a sample reads as sent, with the link readers do not see listed beside it.
  const sample = (await t.call('GET', `/articles/${ids[4321]}`)).body;
  expect(sample).toMatchObject({ copy: `See [it](page:${target}).`, related_article_ids: [target] });
  expect(sample.suppressed_links).toEqual([{ id: target, type: 'article', since: sample.relinked_at }]);

  await t.call('POST', '/api/content/notify', { id: target, type: 'article', action: 'published' });
  await t.stack.drain();
  expect(await check(`See [it](page:${target}).`, [target])).toEqual([]);
  expect((await t.store.pageLive.liveState(t.siteId, 'article', target))!.relink_pending).toBeNull();
  expect(relink.recursiveInvocationsDropped + relinkPages.recursiveInvocationsDropped).toBe(0);
}, 400_000);
