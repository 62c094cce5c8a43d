import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { QUEUES, RelinkPagesMessage, type Enqueue, type RelinkMessage } from '@cm/contract';
import { planRelink, relinkPages } from '@cm/publishing';
import { lambdaContext } from '@cm/local';
import { setQueueTransport } from '@cm/runtime';
import { mapLimit } from '@cm/store';
import { handler as relinkWorker } from '../../functions/relink-worker/handler';
import { pageKey, pageLinkKey } from '../../packages/store/src/keys';
import { storeLinker } from '../helpers/linkers';
import { publishArticle, useTestStack } from '../helpers/local';
import { captureOutput } from '../helpers/output';
import { apiClient, given } from '../helpers/client';

const t = useTestStack();

const record = (messageId: string, body: string) => ({
  messageId,
  receiptHandle: messageId,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:relink',
  awsRegion: 'local',
});

describe('relink worker', () => {
  it('reports only the failing record of a batch', async () => {
    const target = (await publishArticle(t, 'w-target')).body.id;
    const good = JSON.stringify({ site_id: t.siteId, target_id: target, target_type: 'article' });
    const event: SQSEvent = {
      Records: [
        record('good-1', good),
        record('bad-json', '{nope'),
        record('good-2', good),
        record('bad-shape', '{"site_id":"x"}'),
      ],
    };
    const output = captureOutput({ level: 'ERROR' });
    try {
      const response = await relinkWorker(event, lambdaContext('relink-worker', 60_000));
      expect(response).toEqual({
        batchItemFailures: [{ itemIdentifier: 'bad-json' }, { itemIdentifier: 'bad-shape' }],
      });
    } finally {
      output.stop();
    }
    // Each failure is logged with its own message id, under the invocation's request id.
    const failures = output.logs('message failed; SQS delivers it again, or moves it to the dead-letter queue');
    expect(failures.map((line) => line.message_id).sort()).toEqual(['bad-json', 'bad-shape']);
    for (const line of failures)
      expect(line).toMatchObject({
        level: 'ERROR',
        function_name: 'relink-worker',
        receive_count: 1,
        function_request_id: expect.any(String),
      });
    expect(
      given(
        failures.find((line) => line.message_id === 'bad-json'),
        'the find',
      ).error.message,
    ).toBe('message bad-json is not JSON');
  });

  it('moves a message that fails every attempt to the dead-letter queue, and no other', async () => {
    const queue = t.stack.queues.relink;
    const target = (await publishArticle(t, 'w-dlq-target')).body.id;
    // The failures are logged: captured here, so a green run prints no stack trace of an error it provoked.
    const output = captureOutput({ level: 'ERROR' });
    try {
      await queue.send('{"site_id": 1, "target_id": 7}');
      await queue.send(JSON.stringify({ site_id: t.siteId, target_id: target, target_type: 'article' }));
      await t.stack.drain();
    } finally {
      output.stop();
    }
    const failures = output.logs('message failed; SQS delivers it again, or moves it to the dead-letter queue');
    expect(failures.map((line) => line.receive_count)).toEqual(
      Array.from({ length: QUEUES.relink.maxReceiveCount }, (_v, i) => i + 1),
    );
    expect(queue.deadLetters).toEqual([
      {
        messageId: expect.any(String),
        body: '{"site_id": 1, "target_id": 7}',
        receiveCount: QUEUES.relink.maxReceiveCount,
      },
    ]);
    queue.deadLetters.length = 0;
  });

  it('heals the link index: an edge whose page no longer links is dropped, and the page is left alone', async () => {
    const client = apiClient(t);
    const target = (await publishArticle(t, 'w-heal-target')).body.id;
    const linker = (await publishArticle(t, 'w-heal-linker')).body.id;
    // As a lost race with a republish would leave it: an edge for a link the page does not have.
    // Written beneath the store: the edge alone, with no link item beside the page.
    await t.db.send(
      new PutCommand({
        TableName: t.stack.tableName,
        Item: { pk: `SITE#${t.siteId}#LINKS_TO#${target}`, sk: linker, source_type: 'article' },
      }),
    );
    expect((await t.store.links.linkingPages(t.siteId, target, { limit: 10 })).pages).toEqual([
      { id: linker, type: 'article' },
    ]);
    const before = (await client.route('GET /articles/{id}', { params: { id: linker } })).body;

    await client.route('POST /api/content/notify', { body: { id: target, type: 'article', action: 'deleted' } });
    await t.stack.drain();
    expect((await client.route('GET /articles/{id}', { params: { id: linker } })).body).toEqual(before);
    expect((await t.store.links.linkingPages(t.siteId, target, { limit: 10 })).pages).toEqual([]);
  });

  it('keeps and restores a link held on a page item from before link items, until its next publish moves it', async () => {
    const client = apiClient(t);
    const target = (await publishArticle(t, 'w-legacy-target')).body.id;
    const linker = (await publishArticle(t, 'w-legacy-linker', { related_article_ids: [target] })).body.id;
    // As a publish from before link items left the page, written beneath the store: its links on its item.
    const TableName = t.stack.tableName;
    const key = pageKey(t.siteId, 'article', linker);
    await t.db.send(new DeleteCommand({ TableName, Key: pageLinkKey(t.siteId, 'article', linker, target) }));
    await t.db.send(
      new UpdateCommand({
        TableName,
        Key: key,
        UpdateExpression: 'SET links = :links REMOVE links_indexed',
        ExpressionAttributeValues: { ':links': [target] },
      }),
    );
    const notify = async (action: 'published' | 'unpublished') => {
      await client.route('POST /api/content/notify', { body: { id: target, type: 'article', action } });
      await t.stack.drain();
      return (await client.route('GET /articles/{id}', { params: { id: linker } })).body.suppressed_links;
    };

    expect(await notify('unpublished')).toEqual([{ id: target, type: 'article', since: expect.any(String) }]);
    expect(await notify('published')).toEqual([]);
    const [kept] = await notify('unpublished');
    // Its next publish moves what the item held to a link item, since when included, and takes it off the item.
    await publishArticle(t, 'w-legacy-linker', { related_article_ids: [target] });
    expect((await client.route('GET /articles/{id}', { params: { id: linker } })).body.suppressed_links).toEqual([
      kept,
    ]);
    const item = given(
      (await t.db.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }))).Item,
      'the Item',
    );
    expect(Object.keys(item).filter((name) => name === 'links' || name.startsWith('suppressed'))).toEqual([]);
    expect(item.links_indexed).toEqual(expect.any(String));
  });

  it('queues a relink again on the next notify when the first could not be queued', async () => {
    const client = apiClient(t);
    const target = (await publishArticle(t, 'w-pending-target')).body.id;
    const linker = (await publishArticle(t, 'w-pending-linker', { related_article_ids: [target] })).body.id;
    setQueueTransport({ send: async () => Promise.reject(new Error('SQS is down')) });
    const output = captureOutput({ level: 'ERROR' });
    try {
      const failed = await client.routeError('POST /api/content/notify', {
        body: { id: target, type: 'article', action: 'unpublished' },
      });
      expect(failed.status).toBe(500);
      // The caller learns nothing of the cause; the log has all of it.
      expect(failed.body).toEqual({ error: 'internal_error', code: 'internal_error', message: 'Internal error' });
      expect(output.logs('unhandled error')).toEqual([
        expect.objectContaining({
          level: 'ERROR',
          route: 'POST /api/content/notify',
          site_id: t.siteId,
          error: expect.objectContaining({ message: 'SQS is down', stack: expect.stringContaining('SQS is down') }),
        }),
      ]);
    } finally {
      output.stop();
      setQueueTransport({ send: (queue, body) => t.stack.queues[queue].send(body) });
    }
    // The state change stuck; the site retries its notify, and the owed relink goes out with it.
    const retry = await client.route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'unpublished' },
    });
    expect(retry.body).toEqual({ ok: true, matched: true, relink: 'skipped', applied: true });
    await t.stack.drain();
    expect(
      (await client.route('GET /articles/{id}', { params: { id: linker } })).body.suppressed_links.map((s) => s.id),
    ).toEqual([target]);
    expect(
      given(await t.store.pageLive.liveState(t.siteId, 'article', target), 'the liveState').relink_pending,
    ).toBeNull();
  });
});

/** What the relink workflows take: the store, and a queue sender the test stands in for. */
type RelinkContext = { store: typeof t.store; enqueue: Enqueue };

/** The linkers a test writes at once. */
const LINKERS_AT_ONCE = 8;

describe('relink fan-out', () => {
  /** A target linked from `count` pages, its relink owed since a notify that the paused relink queue has. */
  async function owedRelink(slug: string, count: number) {
    const target = (await publishArticle(t, slug)).body.id;
    const now = new Date().toISOString();
    // Written a few at a time (no linker's items are another's): one after another, a few hundred requests
    // each wait their turn on a busy machine; all at once, they fill the client's pool with dozens of
    // connections, and a reset of them spends its retry quota (ECONNRESET in a CI run of 2026-11-30).
    const linkers = Array.from({ length: count }, (_v, i) => `${slug}-linker-${i}`);
    await mapLimit(linkers, LINKERS_AT_ONCE, (linker) => storeLinker(t, { slug: linker, target, now }));
    t.stack.queues.relink.pause();
    await apiClient(t).route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'unpublished' },
    });
    const { relink_pending: requestedAt } = given(
      await t.store.pageLive.liveState(t.siteId, 'article', target),
      'the liveState',
    );
    expect(requestedAt).not.toBeNull();
    const message: RelinkMessage = {
      site_id: t.siteId,
      target_id: target,
      target_type: 'article',
      requested_at: given(requestedAt, 'the requestedAt'),
    };
    const pending = async () =>
      given(await t.store.pageLive.liveState(t.siteId, 'article', target), 'the liveState').relink_pending;
    return { target, message, pending };
  }
  afterEach(async () => {
    t.stack.queues.relink.resume();
    await t.stack.drain();
  });

  it('plans batches of 100 that send nothing, and clears relink_pending exactly when the last batch is done, whatever the order, counting a batch delivered twice once', async () => {
    // Two full batches and a partial one, with as few pages as that takes.
    const { message, pending } = await owedRelink('fan-order', 201);
    const batches: RelinkPagesMessage[] = [];
    const ctx: RelinkContext = {
      store: t.store,
      enqueue: async (queue, sent) => {
        expect(queue).toBe('relink-pages');
        batches.push(RelinkPagesMessage.parse(sent));
      },
    };
    expect(await planRelink(ctx, message)).toEqual({ linkers: 201, batches: 3, truncated: false });
    expect(batches.map((b) => [b.batch, b.pages.length])).toEqual([
      [0, 100],
      [1, 100],
      [2, 1],
    ]);
    expect(await pending()).toBe(message.requested_at);
    // Out of order, the partial batch delivered twice (the smallest to run again): 3 deliveries, 2 batches done.
    await relinkPages(ctx, given(batches[2], 'the batches[2]'));
    await relinkPages(ctx, given(batches[2], 'the batches[2]'));
    await relinkPages(ctx, given(batches[0], 'the batches[0]'));
    expect(await pending()).toBe(message.requested_at);
    await relinkPages(ctx, given(batches[1], 'the batches[1]'));
    expect(await pending()).toBeNull();
  });

  it('clears relink_pending when every batch was done before the planner recorded its plan', async () => {
    const { message, pending } = await owedRelink('fan-early', 101);
    // Each batch runs as soon as it is sent, before the plan is recorded.
    const ctx: RelinkContext = {
      store: t.store,
      enqueue: async (_queue, sent) => {
        await relinkPages(ctx, RelinkPagesMessage.parse(sent));
      },
    };
    expect(await planRelink(ctx, message)).toMatchObject({ batches: 2 });
    expect(await pending()).toBeNull();
  });

  it('keeps relink_pending while a newer relink is owed: an older fan-out finishing clears nothing', async () => {
    const { target, message, pending } = await owedRelink('fan-newer', 10);
    await apiClient(t).route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'published' },
    });
    const newer = await pending();
    expect(newer).not.toBe(message.requested_at);
    const ctx: RelinkContext = {
      store: t.store,
      enqueue: async (_queue, sent) => void (await relinkPages(ctx, RelinkPagesMessage.parse(sent))),
    };
    await planRelink(ctx, message);
    expect(await pending()).toBe(newer);
  });
});
