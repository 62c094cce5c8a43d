import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Enqueue } from '@cm/contract';
import { announceAtRoot, sendAnnouncements } from '@cm/publishing';
import * as z from 'zod/mini';
import { getAtHost, startTestStack, type TestStack, article, question } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

/*
 * IndexNow (docs/api/publishing.md#indexnow): a site at its own domain has its key file at the domain's
 * root, and every change of what readers reach there goes to a loopback stand-in of IndexNow's endpoint
 * (INDEXNOW_ENDPOINT), with no debounce wait (INDEXNOW_DELAY_SECONDS=0): a test holds the queue instead.
 */

const IndexNowBody = z.object({
  host: z.string(),
  key: z.string(),
  keyLocation: z.string(),
  urlList: z.array(z.string()),
});
type IndexNowBody = z.infer<typeof IndexNowBody>;

let t: TestStack;
let endpoint: Server;
let received: IndexNowBody[] = [];
/** The statuses the stand-in answers, in order (then 200). */
let answers: number[] = [];
let shop: { siteId: number; key: string };
let key: string;

const HOST = 'shop.example.com';
const SHOP = `https://${HOST}`;

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(IndexNowBody.parse(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      // A 429 or 5xx asks for no wait: the retries of a test run at once.
      res.writeHead(answers.shift() ?? 200, { 'retry-after': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const { port } = endpoint.address() as AddressInfo;
  t = await startTestStack({
    env: { INDEXNOW_ENDPOINT: `http://127.0.0.1:${port}/indexnow`, INDEXNOW_DELAY_SECONDS: '0' },
  });
  shop = await t.newSite('Shop', { domain: HOST });
  expect(await t.store.sites.serveDomain(shop.siteId, HOST)).toBe('served');
  key = given((await t.store.sites.get(shop.siteId))?.indexnow_key, 'the key serving the domain made');
}, 60_000);
beforeEach(() => {
  received = [];
  answers = [];
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => endpoint.close(resolve));
});

const client = () => apiClient(t, shop.key);
const queue = () => t.stack.queues.indexnow;

/** Runs `changes` while the indexnow queue holds its messages, then lets them go and waits for them: the requests they made. */
async function sentAfter(changes: () => Promise<unknown>): Promise<IndexNowBody[]> {
  queue().pause();
  try {
    await changes();
  } finally {
    queue().resume();
  }
  await queue().idle();
  return received.splice(0);
}

/** The site's IndexNow ledger lines, as stored (what each request sent and its answer). */
async function ledger(siteId: number) {
  const out = await t.db.send(
    new QueryCommand({
      TableName: t.stack.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `SITE#${siteId}#USAGE` },
    }),
  );
  return (out.Items ?? []).filter((item) => item.tool === 'indexnow');
}

describe('IndexNow', () => {
  it("serves the site's key file at its domain's root, the key as plain text; no other .txt there", async () => {
    expect(key).toMatch(/^[a-f0-9]{32}$/);
    // The key is the site's own, made once: asking again keeps it; no site, no key.
    expect(await t.store.sites.indexNowKey(shop.siteId)).toBe(key);
    expect(await t.store.sites.indexNowKey(999_999)).toBeNull();
    const file = await getAtHost(t, HOST, `/${key}.txt`);
    expect([file.status, file.headers['content-type'], file.text]).toEqual([200, 'text/plain; charset=utf-8', key]);
    for (const path of [`/${key.toUpperCase()}.txt`, '/0123456789abcdef.txt', `/${key}`, '/ads.txt', '/about']) {
      const other = await getAtHost(t, HOST, path);
      expect([path, other.status]).toEqual([path, 404]);
      expect(other.text).toContain('<!doctype html>');
    }
    // Not at a domain no site serves, nor under the deployment's address.
    expect((await getAtHost(t, 'unknown.example.com', `/${key}.txt`)).status).toBe(404);
    expect((await t.call('GET', `/sites/${shop.siteId}/${key}.txt`, undefined, { key: null })).status).toBe(404);
  });

  it('sends a publish, a republish that changes the page, an unpublish and a delete; not a republish of the same content', async () => {
    const boots = `${SHOP}/articles/boots`;
    const [first] = await sentAfter(() => client().route('POST /articles', { body: article('boots') }));
    expect(first).toEqual({ host: HOST, key, keyLocation: `${SHOP}/${key}.txt`, urlList: [boots] });
    // The same content again (without updated_at, so dated anew): nothing readers see changed.
    expect(await sentAfter(() => client().route('POST /articles', { body: article('boots') }))).toEqual([]);
    const changed = await sentAfter(() =>
      client().route('POST /articles', { body: article('boots', { title: 'Better boots' }) }),
    );
    expect(changed.map((request) => request.urlList)).toEqual([[boots]]);
    const id = (await client().route('POST /articles', { body: article('boots', { title: 'Better boots' }) })).body.id;
    await queue().idle();
    expect(received.splice(0)).toEqual([]);
    const notify = (action: 'unpublished' | 'published' | 'deleted') =>
      client().route('POST /api/content/notify', { body: { id, type: 'article', action } });
    for (const action of ['unpublished', 'published', 'deleted'] as const)
      expect([action, (await sentAfter(() => notify(action))).map((request) => request.urlList)]).toEqual([
        action,
        [[boots]],
      ]);
    // A notify that changes nothing readers reach (deleted again) sends nothing.
    expect(await sentAfter(() => notify('deleted'))).toEqual([]);
    // A draft never readers': nothing; its publish is.
    expect(
      await sentAfter(() => client().route('POST /questions', { body: question('fit', { status: 'draft' }) })),
    ).toEqual([]);
    const live = await sentAfter(() => client().route('POST /questions', { body: question('fit') }));
    expect(live.map((request) => request.urlList)).toEqual([[`${SHOP}/questions/fit`]]);
  });

  it('debounces per URL and batches the site’s changes: one request, each URL once', async () => {
    const sent = await sentAfter(async () => {
      await client().route('POST /articles', { body: article('laces') });
      await client().route('POST /articles', { body: article('laces', { title: 'Laces, again' }) });
      await client().route('POST /articles', { body: article('socks') });
    });
    expect(sent.map((request) => request.urlList.sort())).toEqual([
      [`${SHOP}/articles/laces`, `${SHOP}/articles/socks`],
    ]);
    // One message for the burst.
    expect(queue().deadLetters).toEqual([]);
  });

  it('retries 429 and 5xx with backoff until IndexNow takes them, each try in the ledger at $0 with what it sent and the answer', async () => {
    const before = (await ledger(shop.siteId)).length;
    answers = [429, 503, 500, 502];
    const sent = await sentAfter(() => client().route('POST /articles', { body: article('belts') }));
    // Three tries in the first delivery, then SQS delivers the message again: two more.
    expect(sent.map((request) => request.urlList)).toEqual(Array.from({ length: 5 }, () => [`${SHOP}/articles/belts`]));
    const lines = (await ledger(shop.siteId)).slice(before);
    expect(lines.map((line) => [line.provider, line.cost_usd, line.sent.status, line.sent.url_count])).toEqual(
      [429, 503, 500, 502, 200].map((status) => ['indexnow', 0, status, 1]),
    );
    expect(lines[0]?.sent).toEqual({ host: HOST, url_count: 1, urls: [`${SHOP}/articles/belts`], status: 429 });
    const usage = await t.store.usage.report(shop.siteId, '2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
    expect(usage.by_tool.find((line) => line.tool === 'indexnow')).toMatchObject({ provider: 'indexnow', cost_usd: 0 });
    // Sent: nothing is left to send.
    expect(await t.store.indexNow.pending(shop.siteId, 10)).toEqual([]);
  });

  it('does not retry a refusal other than 429: recorded, and the URL is not sent again', async () => {
    answers = [403];
    const sent = await sentAfter(() => client().route('POST /articles', { body: article('hats') }));
    expect(sent.map((request) => request.urlList)).toEqual([[`${SHOP}/articles/hats`]]);
    const [last] = (await ledger(shop.siteId)).slice(-1);
    expect(last?.sent).toMatchObject({ status: 403, url_count: 1 });
    expect(await t.store.indexNow.pending(shop.siteId, 10)).toEqual([]);
    expect(queue().deadLetters).toEqual([]);
  });

  it('sends nothing for a noindex page, nor for a site without a domain of its own', async () => {
    expect(
      await sentAfter(() => client().route('POST /articles', { body: article('secret', { noindex: true }) })),
    ).toEqual([]);
    const pathBased = await t.newSite('No domain');
    const publish = () => apiClient(t, pathBased.key).route('POST /articles', { body: article('plain') });
    expect(await sentAfter(publish)).toEqual([]);
    expect(await ledger(pathBased.siteId)).toEqual([]);
  });

  it('sends both URLs of a change another workflow names (a rename), one message for the window, after its delay', async () => {
    const queued: [string, unknown, number | undefined][] = [];
    const enqueue: Enqueue = (name, message, delaySeconds) => {
      queued.push([name, message, delaySeconds]);
      return Promise.resolve();
    };
    const renamed = [`${SHOP}/articles/old-name`, `${SHOP}/articles/new-name`];
    // SQS refusing the message: the change fails, and leaves no mark that would keep the next one from queueing.
    const down: Enqueue = () => Promise.reject(new Error('SQS is down'));
    await expect(announceAtRoot({ store: t.store, enqueue: down }, shop.siteId, SHOP, renamed)).rejects.toThrow(
      'SQS is down',
    );
    await announceAtRoot({ store: t.store, enqueue }, shop.siteId, SHOP, [...renamed, `${t.url}/sites/1/articles/x`]);
    await announceAtRoot({ store: t.store, enqueue }, shop.siteId, SHOP, [renamed[1] ?? '']);
    // The default window (LIMITS.indexNowDelaySeconds), one message for both calls.
    expect(queued).toEqual([['indexnow', { site_id: shop.siteId }, 30]]);
    const pending = await t.store.indexNow.pending(shop.siteId, 10);
    expect(pending.map((item) => item.url).sort()).toEqual([...renamed].sort());
    const sent = await sentAfter(() => t.stack.queues.indexnow.send(JSON.stringify({ site_id: shop.siteId })));
    expect(sent.map((request) => request.urlList.sort())).toEqual([[...renamed].sort()]);
  });

  it('sends a rename: the old URL and the new; a redirect removed: the old URL; nothing of a noindex page or a draft', async () => {
    const as = { key: shop.key };
    const { id } = (await t.call('POST', '/articles', article('tent'), as)).body;
    const hidden = (await t.call('POST', '/articles', article('hidden-tent', { noindex: true }), as)).body.id;
    const draft = (await t.call('POST', '/articles', article('draft-tent', { status: 'draft' }), as)).body.id;
    await queue().idle();
    received.splice(0);
    const renamed = await sentAfter(async () => {
      expect((await t.call('POST', `/articles/${id}/rename`, { slug: 'tent-guide' }, as)).status).toBe(200);
      expect((await t.call('POST', `/articles/${hidden}/rename`, { slug: 'hidden-guide' }, as)).status).toBe(200);
      // Readers reach a draft at neither URL, before or after.
      expect((await t.call('POST', `/articles/${draft}/rename`, { slug: 'draft-guide' }, as)).status).toBe(200);
    });
    expect(renamed.map((request) => request.urlList.sort())).toEqual([
      [`${SHOP}/articles/tent`, `${SHOP}/articles/tent-guide`],
    ]);
    const removed = await sentAfter(async () => {
      expect((await t.call('DELETE', `/articles/${id}/redirects/tent`, undefined, as)).status).toBe(200);
    });
    expect(removed.map((request) => request.urlList)).toEqual([[`${SHOP}/articles/tent`]]);
  });

  it('sends a scheduled publish when the sweep makes the page live, not when it is stored as a draft', async () => {
    const due = new Date(Date.now() + 2 * 60_000);
    const stored = await sentAfter(async () => {
      const draft = await t.call('POST', '/articles', article('lantern', { publish_at: due.toISOString() }), {
        key: shop.key,
      });
      expect(draft.body.status).toBe('draft');
    });
    expect(stored).toEqual([]);
    const swept = await sentAfter(() => t.stack.sweepPageSchedules(new Date(due.getTime() + 60_000)));
    expect(swept.map((request) => request.urlList)).toEqual([[`${SHOP}/articles/lantern`]]);
  });

  it('gives a site served at its domain before keys were made a key at its first change, served at once', async () => {
    const legacy = await t.newSite('Legacy', { domain: 'legacy.example.com' });
    expect(await t.store.sites.serveDomain(legacy.siteId, 'legacy.example.com')).toBe('served');
    await t.db.send(
      new UpdateCommand({
        TableName: t.stack.tableName,
        Key: { pk: `SITE#${legacy.siteId}`, sk: 'META' },
        ConditionExpression: 'attribute_exists(indexnow_key)',
        UpdateExpression: 'REMOVE indexnow_key',
      }),
    );
    // Read (and kept by the container) without a key.
    expect((await getAtHost(t, 'legacy.example.com', '/0123456789abcdef.txt')).status).toBe(404);
    const [request] = await sentAfter(() =>
      apiClient(t, legacy.key).route('POST /articles', { body: article('first') }),
    );
    const made = given(request?.key, 'the key sent');
    expect(made).toBe((await t.store.sites.get(legacy.siteId))?.indexnow_key);
    expect((await getAtHost(t, 'legacy.example.com', `/${made}.txt`)).text).toBe(made);
  });

  it('drops pending URLs of a domain the site no longer serves, and keeps what a delivery out of time did not send', async () => {
    await t.store.indexNow.mark(shop.siteId, ['https://old.example.com/articles/x'], new Date());
    const sent = await sentAfter(() => t.stack.queues.indexnow.send(JSON.stringify({ site_id: shop.siteId })));
    expect(sent).toEqual([]);
    expect(await t.store.indexNow.pending(shop.siteId, 10)).toEqual([]);
    const url = `${SHOP}/articles/late`;
    await t.store.indexNow.mark(shop.siteId, [url], new Date());
    const submit = () => Promise.reject(new Error('not to be called'));
    await expect(
      sendAnnouncements({ store: t.store, submit }, { site_id: shop.siteId }, AbortSignal.abort()),
    ).rejects.toThrow('out of time');
    expect((await t.store.indexNow.pending(shop.siteId, 10)).map((item) => item.url)).toEqual([url]);
    const later = await sentAfter(() => t.stack.queues.indexnow.send(JSON.stringify({ site_id: shop.siteId })));
    expect(later.map((request) => request.urlList)).toEqual([[url]]);
  });
});
