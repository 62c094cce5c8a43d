import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SERVICE_LIMITS } from '@cm/contract';
import { fakeClock } from '../helpers/clock';
import { apiClient } from '../helpers/client';
import { article, publishArticle, requestPathCount, useTestStack } from '../helpers/local';
import { COUNTED_REQUESTS } from '../helpers/request-counts';

/* Pages on a schedule (docs/api/publishing.md#pages-on-a-schedule), on one clock: the test's. */

const t = useTestStack();

const MINUTE = 60_000;
/** The test clock: every publish, notify and sweep runs at it, and it only moves forward (the sweep's cursor does). */
let clock = Math.floor(Date.now() / MINUTE) * MINUTE + 10_000;
/** An ISO time `minutes` from the clock. */
const after = (minutes: number) => new Date(clock + minutes * MINUTE).toISOString();
/** Moves the clock `minutes` forward. */
const advance = (minutes: number) => {
  clock += minutes * MINUTE;
  jest.setSystemTime(clock);
};
/** The page schedule's run at the clock, as its timer would fire it. */
const sweep = () => t.stack.sweepPageSchedules(new Date(clock));

const read = async (id: string) => (await apiClient(t).route('GET /articles/{id}', { params: { id } })).body;
const visitor = (slug: string, siteId = t.siteId) =>
  t.call('GET', `/sites/${siteId}/articles/${slug}`, undefined, { key: null });

beforeAll(() => fakeClock(clock));
afterAll(() => jest.useRealTimers());

describe('a publish with publish_at', () => {
  it('is stored as a draft with its time, and is published at that minute exactly once', async () => {
    // An offset is taken, and the time stored and reported in UTC.
    const due = new Date(clock + 3 * MINUTE);
    const offset = `${new Date(due.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`;
    const published = await publishArticle(t, 'sched-once', { publish_at: offset });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ status: 'draft', publish_at: due.toISOString(), warnings: [] });
    const id = published.body.id;
    expect(await read(id)).toMatchObject({ status: 'draft', live: false, publish_at: due.toISOString() });
    expect((await visitor('sched-once')).status).toBe(404);

    advance(2);
    expect(await sweep()).toEqual({ applied: 0, replaced: 0 });
    expect((await read(id)).status).toBe('draft');

    advance(1);
    // The change's item as the sweep finds it, to deliver it again after it was applied and removed.
    const [item] =
      (
        await t.db.send(
          new QueryCommand({
            TableName: t.stack.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `SCHEDULE#${due.toISOString().slice(0, 16)}` },
          }),
        )
      ).Items ?? [];
    // Two runs at once (an event delivered twice) apply it once.
    const runs = await Promise.all([sweep(), sweep()]);
    expect(runs.reduce((sum, run) => sum + run.applied, 0)).toBe(1);
    const live = await read(id);
    expect(live).toMatchObject({ status: 'published', live: true });
    expect(live.publish_at).toBeUndefined();
    expect((await visitor('sched-once')).status).toBe(200);

    // A run that applied it but stopped before removing it: the next run finds it applied.
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: item }));
    expect(await sweep()).toEqual({ applied: 0, replaced: 1 });
    expect(await sweep()).toEqual({ applied: 0, replaced: 0 });
    expect((await read(id)).status).toBe('published');
  });

  it('relinks the pages linking to it, and listings, the sitemap and the feed follow', async () => {
    const target = await publishArticle(t, 'sched-linked', { title: 'Scheduled linked', publish_at: after(2) });
    const id = target.body.id;
    advance(1);
    const linker = (await publishArticle(t, 'sched-linker', { copy: `See [it](page:${id})` })).body.id;
    await t.stack.drain();
    expect((await read(linker)).suppressed_links).toEqual([expect.objectContaining({ id })]);
    const root = `/sites/${t.siteId}`;
    const month = after(1).slice(0, 7);
    const reach = async () => ({
      home: (await t.call('GET', `${root}/`, undefined, { key: null })).text.includes('Scheduled linked'),
      sitemap: (await t.call('GET', `${root}/sitemaps/${month}.xml`, undefined, { key: null })).text.includes(
        '/articles/sched-linked<',
      ),
      feed: (await t.call('GET', `${root}/feed.xml`, undefined, { key: null })).text.includes('Scheduled linked'),
    });
    expect(await reach()).toEqual({ home: false, sitemap: false, feed: false });

    advance(1);
    expect((await sweep()).applied).toBe(1);
    await t.stack.drain();
    expect((await read(linker)).suppressed_links).toEqual([]);
    expect(await reach()).toEqual({ home: true, sitemap: true, feed: true });
    // Listed as published at its time, so before the page published after it was stored.
    const feed = (await t.call('GET', `${root}/feed.xml`, undefined, { key: null })).text;
    expect(feed.indexOf('Scheduled linked')).toBeLessThan(feed.indexOf('Title of sched-linker'));
    expect((await read(id)).created_at).toBe(after(0));
  });
});

describe('a schedule given up or moved earlier', () => {
  /** The site's month sitemap of `at`, as a crawler reads it. */
  const monthSitemap = async (at: number) =>
    (
      await t.call('GET', `/sites/${t.siteId}/sitemaps/${new Date(at).toISOString().slice(0, 7)}.xml`, undefined, {
        key: null,
      })
    ).text;

  it('dates a page published sooner by when it went live, not by the time it was first scheduled for', async () => {
    const ahead = after(40 * 24 * 60);
    const { id } = (await publishArticle(t, 'sched-sooner', { publish_at: ahead, category: 'Lamps' })).body;
    expect((await read(id)).created_at).toBe(ahead);
    expect((await publishArticle(t, 'sched-sooner', { category: 'Lamps' })).body.status).toBe('published');
    expect((await read(id)).created_at).toBe(new Date(clock).toISOString());
    expect(await monthSitemap(clock)).toContain('/articles/sched-sooner');
    const lamps = await t.call('GET', `/sites/${t.siteId}/categories/lamps`, undefined, { key: null });
    expect([lamps.status, lamps.text.includes('/articles/sched-sooner')]).toEqual([200, true]);
  });

  it('dates a page whose schedule moved earlier by its new time', async () => {
    const { id } = (await publishArticle(t, 'sched-earlier', { publish_at: after(40 * 24 * 60) })).body;
    const sooner = after(2);
    await publishArticle(t, 'sched-earlier', { publish_at: sooner });
    expect((await read(id)).created_at).toBe(sooner);
    advance(3);
    expect((await sweep()).applied).toBeGreaterThanOrEqual(1);
    expect(await read(id)).toMatchObject({ status: 'published', created_at: sooner });
    expect(await monthSitemap(clock)).toContain('/articles/sched-earlier');
  });
});

describe('the sweep', () => {
  it('leaves a change due later in the current minute to a later run', async () => {
    const due = new Date(clock + MINUTE + 30_000).toISOString();
    const id = (await publishArticle(t, 'sched-later', { publish_at: due })).body.id;
    advance(1);
    expect(await sweep()).toEqual({ applied: 0, replaced: 0 });
    clock += 30_000;
    jest.setSystemTime(clock);
    expect(await sweep()).toEqual({ applied: 1, replaced: 0 });
    expect((await read(id)).status).toBe('published');
  });

  it('applies at most its bound of changes a run, and the next run goes on', async () => {
    const ids = await Promise.all(
      ['sched-bound-a', 'sched-bound-b'].map(
        async (slug) => (await publishArticle(t, slug, { publish_at: after(1) })).body.id,
      ),
    );
    advance(1);
    const limits: { scheduleSweepChangesMax: number } = SERVICE_LIMITS;
    jest.replaceProperty(limits, 'scheduleSweepChangesMax', 1);
    try {
      expect(await sweep()).toEqual({ applied: 1, replaced: 0 });
      expect(await sweep()).toEqual({ applied: 1, replaced: 0 });
    } finally {
      jest.restoreAllMocks();
    }
    expect((await Promise.all(ids.map(read))).map((page) => page.status)).toEqual(['published', 'published']);
  });
});

describe('unpublish_at', () => {
  it('takes a published page down at its time, and relinks the pages linking to it', async () => {
    const page = await publishArticle(t, 'sched-down', { unpublish_at: after(2) });
    expect(page.body).toMatchObject({ status: 'published', unpublish_at: after(2) });
    const id = page.body.id;
    const linker = (await publishArticle(t, 'sched-down-linker', { copy: `See [it](page:${id})` })).body.id;
    await t.stack.drain();
    expect((await read(linker)).suppressed_links).toEqual([]);

    advance(2);
    expect((await sweep()).applied).toBe(1);
    await t.stack.drain();
    const down = await read(id);
    expect(down).toMatchObject({ status: 'draft', live: false });
    expect(down.unpublish_at).toBeUndefined();
    expect((await visitor('sched-down')).status).toBe(404);
    expect((await read(linker)).suppressed_links).toEqual([expect.objectContaining({ id })]);
  });

  it('follows the publish_at of the same publish: published, then taken down', async () => {
    const id = (await publishArticle(t, 'sched-window', { publish_at: after(1), unpublish_at: after(3) })).body.id;
    expect(await read(id)).toMatchObject({ status: 'draft', publish_at: after(1), unpublish_at: after(3) });
    advance(1);
    expect((await sweep()).applied).toBe(1);
    expect(await read(id)).toMatchObject({ status: 'published', unpublish_at: after(2) });
    advance(2);
    expect((await sweep()).applied).toBe(1);
    expect((await read(id)).status).toBe('draft');
  });
});

describe('before the time', () => {
  it('a republish with another publish_at moves it', async () => {
    const first = after(2);
    const id = (await publishArticle(t, 'sched-moved', { publish_at: first })).body.id;
    const moved = await publishArticle(t, 'sched-moved', { publish_at: after(4) });
    expect(moved.body).toMatchObject({ status: 'draft', publish_at: after(4) });
    advance(2);
    expect(await sweep()).toEqual({ applied: 0, replaced: 1 });
    expect(await read(id)).toMatchObject({ status: 'draft', publish_at: after(2) });
    advance(2);
    expect(await sweep()).toEqual({ applied: 1, replaced: 0 });
    expect((await read(id)).status).toBe('published');
  });

  it('a republish without publish_at cancels it', async () => {
    const id = (await publishArticle(t, 'sched-cancelled', { publish_at: after(2) })).body.id;
    const again = await publishArticle(t, 'sched-cancelled', { status: 'draft' });
    expect(again.body.publish_at).toBeUndefined();
    advance(2);
    expect(await sweep()).toEqual({ applied: 0, replaced: 1 });
    const page = await read(id);
    expect(page.status).toBe('draft');
    expect(page.publish_at).toBeUndefined();
  });

  it('a notify cancels it', async () => {
    const id = (await publishArticle(t, 'sched-notified', { unpublish_at: after(2) })).body.id;
    const notified = await apiClient(t).route('POST /api/content/notify', {
      body: { id, type: 'article', action: 'published' },
    });
    expect(notified.body.applied).toBe(true);
    expect((await read(id)).unpublish_at).toBeUndefined();
    advance(2);
    expect(await sweep()).toEqual({ applied: 0, replaced: 1 });
    expect((await read(id)).status).toBe('published');
  });
});

describe('times that cannot hold', () => {
  it.each([
    ['a time without its zone', { publish_at: '2030-01-01T10:00:00' }, 'publish_at'],
    ['a date alone', { publish_at: '2030-01-01' }, 'publish_at'],
    ['no time at all', { unpublish_at: 'tomorrow' }, 'unpublish_at'],
    ['unpublish_at at publish_at', { publish_at: 'AT2', unpublish_at: 'AT2' }, 'unpublish_at'],
    ['unpublish_at before now', { unpublish_at: 'PAST' }, 'unpublish_at'],
    ['publish_at past a year ahead', { publish_at: 'YEAR+' }, 'publish_at'],
    ['a draft with publish_at', { publish_at: 'AT2', status: 'draft' }, 'status'],
  ])('%s: 400, and nothing stored', async (_name, times, path) => {
    const named: Record<string, string> = {
      AT2: after(2),
      PAST: after(-1),
      'YEAR+': new Date(clock + 365 * 86_400_000 + 1000).toISOString(),
    };
    const body = Object.fromEntries(Object.entries(times).map(([field, value]) => [field, named[value] ?? value]));
    const slug = `sched-bad-${path}`;
    const res = await t.call('POST', '/articles', article(slug, body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path })] });
    expect((await visitor(slug)).status).toBe(404);
    const listed = await apiClient(t).route('GET /articles', { query: { status: 'draft' } });
    expect(listed.body.items.map((item: { slug: string }) => item.slug)).not.toContain(slug);
  });

  it('a year ahead is taken; a publish_at that passed publishes now, and says so', async () => {
    const year = new Date(clock + 365 * 86_400_000).toISOString();
    expect((await publishArticle(t, 'sched-year', { publish_at: year })).body.publish_at).toBe(year);
    const past = await publishArticle(t, 'sched-past', { publish_at: after(-5) });
    expect(past.body).toMatchObject({
      status: 'published',
      warnings: [expect.objectContaining({ path: 'publish_at' })],
    });
    expect(past.body.publish_at).toBeUndefined();
  });
});

describe('scoping and costs', () => {
  it("changes only its own site's page", async () => {
    const other = await t.newSite('Scheduled other');
    const mine = (await publishArticle(t, 'sched-scoped', { publish_at: after(1) })).body.id;
    const theirs = await t.call('POST', '/articles', article('sched-scoped', { status: 'draft' }), { key: other.key });
    advance(1);
    expect((await sweep()).applied).toBe(1);
    expect((await read(mine)).status).toBe('published');
    const theirPage = await t.call('GET', `/articles/${theirs.body.id}`, undefined, { key: other.key });
    expect(theirPage.body.status).toBe('draft');
    expect((await visitor('sched-scoped', other.siteId)).status).toBe(404);
  });

  it('a scheduled publish costs one request more; a sweep with nothing due costs four', async () => {
    const scheduled = await requestPathCount(t, () =>
      apiClient(t).route('POST /articles', { body: article('sched-counted', { publish_at: after(5) }) }),
    );
    expect([scheduled.result.status, scheduled.requests]).toEqual([201, COUNTED_REQUESTS.publishScheduled]);
    const plain = await requestPathCount(t, () =>
      apiClient(t).route('POST /articles', { body: article('sched-counted-plain') }),
    );
    expect([plain.result.status, plain.requests]).toEqual([201, COUNTED_REQUESTS.publishUnchanged]);
    advance(1);
    await sweep();
    advance(1);
    const idle = await requestPathCount(t, sweep);
    // The cursor read, the last minute's and this minute's Query, and the cursor moved.
    expect([idle.result, idle.requests]).toEqual([{ applied: 0, replaced: 0 }, COUNTED_REQUESTS.scheduleSweepIdle]);
  });
});
