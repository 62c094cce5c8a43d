import type { NotifyInput } from '@cm/contract';
import { pageId } from '@cm/core';
import { article, question, requestPathCount, useTestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

const t = useTestStack();

const notify = (body: NotifyInput, key?: string) => apiClient(t, key).route('POST /api/content/notify', { body });
/** An article's visitor page (HTML, which no JSON route declares: a raw request). */
const visit = (slug: string) => t.call<unknown>('GET', `/sites/${t.siteId}/articles/${slug}`, undefined, { key: null });
const readArticle = async (id: string) => (await apiClient(t).route('GET /articles/{id}', { params: { id } })).body;
const readQuestion = async (id: string) => (await apiClient(t).route('GET /questions/{id}', { params: { id } })).body;
const state = async (id: string) => {
  const page = await readArticle(id);
  return { status: page.status, live: page.live };
};
/** The ids of the links relink keeps from readers of a page. */
const suppressedIds = (page: { suppressed_links: { id: string }[] }) => page.suppressed_links.map((link) => link.id);
const suppressedOf = async (id: string): Promise<string[]> => suppressedIds(await readArticle(id));
const applied = (relink: 'queued' | 'skipped') => ({ ok: true, matched: true, relink, applied: true });
/** `n` distinct instants from now on, oldest first (a notify's date counts no later than its receipt). */
const instants = async (n: number): Promise<string[]> => {
  const out: string[] = [];
  while (out.length < n) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    out.push(new Date().toISOString());
  }
  return out;
};
const publishArticle = async (slug: string, extra: Record<string, unknown> = {}) =>
  (await apiClient(t).route('POST /articles', { body: article(slug, extra) })).body.id;
const publishQuestion = async (slug: string, extra: Record<string, unknown> = {}) =>
  (await apiClient(t).route('POST /questions', { body: question(slug, extra) })).body.id;

describe('POST /api/content/notify: the state table (spec §3)', () => {
  it('takes a published page down on action unpublished without status, and queues relink', async () => {
    const id = await publishArticle('n-unpublish');
    expect((await notify({ id, type: 'article', action: 'unpublished' })).body).toEqual(applied('queued'));
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await visit('n-unpublish')).status).toBe(404);
  });

  it('counts deleted as unpublished and remembers it: reads say deleted, visitors get 410', async () => {
    const id = await publishArticle('n-delete');
    expect((await readArticle(id)).deleted).toBe(false);
    expect((await notify({ id, type: 'article', action: 'deleted' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await readArticle(id)).deleted).toBe(true);
    const drafts = (await apiClient(t).route('GET /articles', { query: { status: 'draft' } })).body.items;
    const listed = drafts.find((i) => i.id === id);
    expect(listed).toMatchObject({ deleted: true, live: false });
    expect((await visit('n-delete')).status).toBe(410);
  });

  it('treats a notify with neither status nor action as still live, relink skipped', async () => {
    const id = await publishArticle('n-neither');
    expect((await notify({ id, type: 'article' })).body).toEqual(applied('skipped'));
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('leaves the state unchanged on action edited, relink skipped', async () => {
    const live = await publishArticle('n-edited');
    const draft = await publishArticle('n-edited-draft', { status: 'draft' });
    expect((await notify({ id: live, type: 'article', action: 'edited' })).body.relink).toBe('skipped');
    expect((await notify({ id: draft, type: 'article', action: 'edited' })).body.relink).toBe('skipped');
    expect(await state(live)).toEqual({ status: 'published', live: true });
    expect(await state(draft)).toEqual({ status: 'draft', live: false });
  });

  it('adopts status when present: it outranks action', async () => {
    const id = await publishArticle('n-status');
    expect((await notify({ id, type: 'article', status: 'published', action: 'unpublished' })).body.relink).toBe(
      'skipped',
    );
    expect(await state(id)).toEqual({ status: 'published', live: true });
    expect((await notify({ id, type: 'article', status: 'draft', action: 'published' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await notify({ id, type: 'article', status: 'draft' })).body.relink).toBe('skipped');
    expect((await notify({ id, type: 'article', status: 'published' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('brings a page back on action published, and a deleted page back to 200', async () => {
    const id = await publishArticle('n-back');
    await notify({ id, type: 'article', action: 'deleted' });
    expect((await notify({ id, type: 'article', action: 'published' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'published', live: true });
    expect((await visit('n-back')).status).toBe(200);
  });

  it('works for questions, and lists the stored status', async () => {
    const q = await publishQuestion('n-question');
    expect((await notify({ id: q, type: 'question', action: 'unpublished' })).body).toEqual(applied('queued'));
    const listed = async (status: 'draft' | 'published') =>
      (await apiClient(t).route('GET /questions', { query: { status } })).body.items.map((i) => i.id);
    const drafts = await listed('draft');
    expect(drafts).toContain(q);
    const published = await listed('published');
    expect(published).not.toContain(q);
  });

  it('answers matched false (ok true, relink skipped) for an id it does not know, another type, or another site', async () => {
    const unknown = { ok: true, matched: false, relink: 'skipped', applied: false, reason: 'unmatched' };
    expect((await notify({ id: 'art_zzzzzzzzzzzzzzzz', type: 'article', action: 'deleted' })).body).toEqual(unknown);
    expect((await notify({ id: 'some-site-page-42', type: 'article', action: 'deleted' })).body).toEqual(unknown);
    const id = await publishArticle('n-other-site');
    expect((await notify({ id, type: 'question', action: 'deleted' })).body).toEqual(unknown);
    const other = await t.newSite();
    expect((await notify({ id, type: 'article', action: 'deleted' }, other.key)).body).toEqual(unknown);
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('validates the payload and needs a key', async () => {
    // A type and an action the declared body has no room for: sent raw.
    const bad = await t.call('POST', '/api/content/notify', { id: 'x', type: 'page', action: 'moved' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['action', 'type']);
    expect(
      (await apiClient(t, null).routeError('POST /api/content/notify', { body: { id: 'x', type: 'article' } })).status,
    ).toBe(401);
    // An unknown field, which the declared body has no room for: sent raw.
    expect(
      (await t.call('POST', '/api/content/notify', { id: 'art_zzzzzzzzzzzzzzzz', type: 'article', extra: 1 })).status,
    ).toBe(200);
  });

  it('takes null status, action, slug and updated_at as left out (audit)', async () => {
    const id = await publishArticle('n-nulls');
    const nulls = { status: null, action: null, slug: null, updated_at: null };
    expect((await notify({ id, type: 'article', ...nulls })).body).toEqual(applied('skipped'));
    expect(await state(id)).toEqual({ status: 'published', live: true });
    expect((await notify({ id, type: 'article', ...nulls, action: 'unpublished' })).body).toEqual(applied('queued'));
    expect((await notify({ id, type: 'article', ...nulls, status: 'published' })).body).toEqual(applied('queued'));
  });

  it('answers matched false for an id of any length that matches no page (audit: over 100 characters)', async () => {
    for (const id of ['x'.repeat(101), 'page-'.repeat(2000)]) {
      const reply = await notify({ id, type: 'article', action: 'deleted' });
      expect([reply.status, reply.body]).toEqual([
        200,
        { ok: true, matched: false, relink: 'skipped', applied: false, reason: 'unmatched' },
      ]);
    }
  });
});

describe('out-of-order and repeated deliveries', () => {
  it('ignores a notify older than the newest applied, and changes nothing on a repeat', async () => {
    const id = await publishArticle('n-order');
    // Changes the site made after the publish, in this order, delivered out of order.
    const [early, late, later] = await instants(3);
    const down: NotifyInput = { id, type: 'article', action: 'unpublished', updated_at: late };
    expect((await notify(down)).body.relink).toBe('queued');
    // An older "published" arrives late: it changes nothing, and says so.
    expect((await notify({ id, type: 'article', action: 'published', updated_at: early })).body).toEqual({
      ok: true,
      matched: true,
      relink: 'skipped',
      applied: false,
      reason: 'stale',
    });
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await notify(down)).body).toEqual(applied('skipped'));
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await notify({ id, type: 'article', action: 'published', updated_at: later })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('orders dates as instants, whatever offset the site writes them with (the store compares them as text)', async () => {
    const id = await publishArticle('n-offsets');
    // 00:00 UTC takes it down; 01:00 at +02:00 is 23:00 UTC the day before: older, though later as text.
    expect(
      (await notify({ id, type: 'article', action: 'unpublished', updated_at: '2026-01-02T00:00:00Z' })).body,
    ).toEqual(applied('queued'));
    expect(
      (await notify({ id, type: 'article', action: 'published', updated_at: '2026-01-02T01:00:00+02:00' })).body,
    ).toMatchObject({ applied: false, reason: 'stale' });
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    // 03:00 at +02:00 is 01:00 UTC: newer, and it applies.
    expect(
      (await notify({ id, type: 'article', action: 'published', updated_at: '2026-01-02T03:00:00+02:00' })).body,
    ).toEqual(applied('queued'));
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it.each(['2030-01-01T00:00:00Z', '9999-12-31T23:59:59Z'])(
    'never lets a notify dated in the future (%s) silence the ones after it',
    async (future) => {
      const id = await publishArticle(`n-future-${future.slice(0, 4)}`);
      expect((await notify({ id, type: 'article', status: 'draft', updated_at: future })).body).toEqual(
        applied('queued'),
      );
      // Counted as made on receipt: a notify without a date, or dated now, still applies.
      expect((await notify({ id, type: 'article', action: 'published' })).body).toEqual(applied('queued'));
      expect(await state(id)).toEqual({ status: 'published', live: true });
      expect(
        (await notify({ id, type: 'article', status: 'draft', updated_at: new Date().toISOString() })).body,
      ).toEqual(applied('queued'));
      expect(await state(id)).toEqual({ status: 'draft', live: false });
    },
  );

  it('starts a new sequence at each publish: the first notify after it applies whatever its date', async () => {
    const id = await publishArticle('n-publish-sequence');
    const minuteAgo = new Date(Date.now() - 60_000).toISOString();
    await notify({ id, type: 'article', action: 'unpublished', updated_at: '2030-01-01T00:00:00Z' });
    expect((await apiClient(t).route('POST /articles', { body: article('n-publish-sequence') })).status).toBe(200);
    expect(await state(id)).toEqual({ status: 'published', live: true });
    // The site's dates are compared with its own earlier notifies since the publish, never with this service's clock.
    expect((await notify({ id, type: 'article', action: 'unpublished', updated_at: minuteAgo })).body).toEqual(
      applied('queued'),
    );
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    // Within the sequence, reordered deliveries are still ordered by their dates.
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    expect((await notify({ id, type: 'article', action: 'published', updated_at: twoMinutesAgo })).body).toMatchObject({
      applied: false,
      reason: 'stale',
    });
    expect(await state(id)).toEqual({ status: 'draft', live: false });
  });

  it("never loses a take-down to the page's own stored date (audit: stale-1)", async () => {
    const published = await apiClient(t).route('POST /articles', {
      body: { slug: 'stale-1', title: 'T', body: [], updated_at: '2025-01-02T03:04:05Z' },
    });
    expect(published.status).toBe(201);
    const reply = await notify({
      id: published.body.id,
      type: 'article',
      action: 'deleted',
      updated_at: '2025-01-02T03:04:05Z',
    });
    expect(reply.body).toEqual(applied('queued'));
    expect((await visit('stale-1')).status).toBe(410);
  });

  it('never loses a take-down to a site clock that runs 2 s behind', async () => {
    const id = await publishArticle('n-clock-behind');
    const behind = new Date(Date.now() - 2_000).toISOString();
    expect((await notify({ id, type: 'article', action: 'unpublished', updated_at: behind })).body).toEqual(
      applied('queued'),
    );
    expect((await visit('n-clock-behind')).status).toBe(404);
  });

  it('applies equal dates in arrival order', async () => {
    const id = await publishArticle('n-equal-dates');
    const [at] = await instants(1);
    expect((await notify({ id, type: 'article', action: 'unpublished', updated_at: at })).body).toEqual(
      applied('queued'),
    );
    expect((await notify({ id, type: 'article', action: 'published', updated_at: at })).body).toEqual(
      applied('queued'),
    );
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('gives exactly one queued relink to concurrent identical notifies', async () => {
    const id = await publishArticle('n-concurrent');
    const [at] = await instants(1);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => notify({ id, type: 'article', action: 'deleted', updated_at: at })),
    );
    expect(replies.map((r) => r.body.relink).sort()).toEqual([
      'queued',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
  });
});

describe('relink', () => {
  it("keeps a linking page's links from readers while the target is down, never rewriting what the editor sent", async () => {
    const target = await publishArticle('r-target');
    const other = await publishArticle('r-other');
    const q = await publishArticle('r-linker', { title: 'Linker' });
    const copy = `Intro [the target](page:${target}) and\r\n\t[other](page:${other}); again [t2](page:${target}) — ünï.`;
    const published = await publishArticle('r-linker', {
      title: 'Linker',
      copy,
      related_article_ids: [other, target],
      related_question_ids: [],
      excerpt: 'kept',
    });
    expect(published).toBe(q);
    const before = await readArticle(q);

    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    const down = await readArticle(q);
    // The document comes back as sent, with the editor's updated_at; what readers do not see is listed beside it.
    expect(before).toMatchObject({ suppressed_links: [], relinked_at: null });
    expect(down.suppressed_links).toEqual([{ id: target, type: 'article', since: down.relinked_at }]);
    expect(given(down.relinked_at, 'the relink time') >= before.updated_at).toBe(true);
    const { suppressed_links: _s1, relinked_at: _a1, ...docBefore } = before;
    const { suppressed_links: _s2, relinked_at: _a2, ...docDown } = down;
    expect(docDown).toEqual(docBefore);
    expect(docDown).toMatchObject({ copy, related_article_ids: [other, target] });

    // A listing says the same when asked, for every listed page, without reading the documents.
    const list = (query: { limit: number; suppressed_links?: boolean }) =>
      apiClient(t).route('GET /articles', { query });
    const listed = (await list({ limit: 200, suppressed_links: true })).body.items;
    expect(
      given(
        listed.find((item) => item.id === q),
        'the linker listed',
      ).suppressed_links,
    ).toEqual(down.suppressed_links);
    expect(
      given(
        listed.find((item) => item.id === target),
        'the target listed',
      ).suppressed_links,
    ).toEqual([]);
    expect((await list({ limit: 200 })).body.items[0]).not.toHaveProperty('suppressed_links');

    // The same relink message again changes nothing more.
    const message = JSON.stringify({ site_id: t.siteId, target_id: target, target_type: 'article' });
    await t.stack.queues.relink.send(message);
    await t.stack.queues.relink.send(message);
    await t.stack.drain();
    expect(await readArticle(q)).toEqual(down);

    await notify({ id: target, type: 'article', action: 'published' });
    await t.stack.drain();
    const up = await readArticle(q);
    expect(up.suppressed_links).toEqual([]);
    expect(given(up.relinked_at, 'the relink time') > given(down.relinked_at, 'the relink time')).toBe(true);
    const { suppressed_links: _s3, relinked_at: _a3, ...docUp } = up;
    expect(docUp).toEqual(docBefore);

    await t.stack.queues.relink.send(message);
    await t.stack.drain();
    expect(await readArticle(q)).toEqual(up);
    expect(t.stack.queues.relink.deadLetters).toEqual([]);
  });

  it('relinks questions linking by related ids, and follows republishes of the linking page', async () => {
    const target = await publishQuestion('r-q-target');
    const linker = await publishQuestion('r-q-linker', { related_question_ids: [target] });
    const dropped = await publishQuestion('r-q-dropped', { related_question_ids: [target] });
    // The second linker stops linking before the target goes down: the index follows the republish.
    await publishQuestion('r-q-dropped', { related_question_ids: [] });
    const droppedBefore = await readQuestion(dropped);

    await notify({ id: target, type: 'question', status: 'draft' });
    await t.stack.drain();
    expect(suppressedIds(await readQuestion(linker))).toEqual([target]);
    expect((await readQuestion(linker)).related_question_ids).toEqual([target]);
    expect(await readQuestion(dropped)).toEqual(droppedBefore);

    // Republished while the target is down, the linker keeps the link out until the target is back.
    await publishQuestion('r-q-linker', { related_question_ids: [target], topics: ['new'] });
    expect(suppressedIds(await readQuestion(linker))).toEqual([target]);
    await notify({ id: target, type: 'question', status: 'published' });
    await t.stack.drain();
    expect(await readQuestion(linker)).toMatchObject({
      related_question_ids: [target],
      topics: ['new'],
      suppressed_links: [],
    });
  });

  it('forgets a suppressed link the linking page no longer has, so re-adding it later shows it', async () => {
    const target = await publishArticle('r-forget-target');
    const linker = await publishArticle('r-forget-linker', { related_article_ids: [target] });
    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    await publishArticle('r-forget-linker', { related_article_ids: [] });
    await notify({ id: target, type: 'article', action: 'published' });
    await t.stack.drain();
    await publishArticle('r-forget-linker', { related_article_ids: [target] });
    expect(await readArticle(linker)).toMatchObject({
      related_article_ids: [target],
      suppressed_links: [],
    });
  });
});

describe('links to pages readers cannot reach at publish', () => {
  const visitorHtml = async (slug: string) => (await visit(slug)).text;

  it('lists a link to a page already down when the linking page is published, and gives it back when the target returns (audit)', async () => {
    const target = await publishArticle('pd-target');
    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    const linker = await publishArticle('pd-linker', {
      body: [{ _type: 'paragraph', text: `See [the target](page:${target}).` }],
      related_article_ids: [target],
    });

    const read = await readArticle(linker);
    expect(read.suppressed_links).toEqual([{ id: target, type: 'article', since: expect.any(String) }]);
    expect(read.related_article_ids).toEqual([target]);
    expect(await visitorHtml('pd-linker')).not.toContain('/articles/pd-target');
    const listed = (await apiClient(t).route('GET /articles', { query: { limit: 200, suppressed_links: true } })).body
      .items;
    expect(
      given(
        listed.find((item) => item.id === linker),
        'the find',
      ).suppressed_links,
    ).toEqual(read.suppressed_links);

    await notify({ id: target, type: 'article', action: 'published' });
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([]);
    expect(await visitorHtml('pd-linker')).toContain('/articles/pd-target');
  });

  it('lists a link to a page not published yet, and gives it back once that page is published live', async () => {
    // Page ids derive from the slug, so an editor can link to a page it publishes next.
    const later = pageId(t.siteId, 'article', 'pd-later');
    const linker = await publishArticle('pd-early-linker', {
      body: [{ _type: 'paragraph', text: `Soon: [next](page:${later}).` }],
    });
    expect(await suppressedOf(linker)).toEqual([later]);
    expect(await visitorHtml('pd-early-linker')).not.toContain('/articles/pd-later');

    // Published as a draft, it is still out of readers' reach.
    await publishArticle('pd-later', { status: 'draft' });
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([later]);

    await publishArticle('pd-later');
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([]);
    expect(await visitorHtml('pd-early-linker')).toContain('/articles/pd-later');
  });

  it('publishes a new page that links to a live page in four requests, with no look-up of pages linking to it', async () => {
    const target = await publishArticle('pd-live-target');
    // Work the first publish queued (its relink step) shares the counted engine: let it end first.
    await t.stack.drain();
    const { requests: counted, result: linker } = await requestPathCount(t, () =>
      publishArticle('pd-live-linker', { related_article_ids: [target] }),
    );
    // The page, its link index, its one live target, the page's word that its index has them; whether
    // pages linked to it before is the mark they left on its item.
    expect(counted).toBe(4);
    expect(await suppressedOf(linker)).toEqual([]);
  });
});

describe('relink on republish', () => {
  it('restores links when the editor republishes a page the site had taken down, and removes them when it publishes it as draft', async () => {
    const target = await publishArticle('rp-target');
    const linker = await publishArticle('rp-linker', { related_article_ids: [target] });
    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([target]);

    expect(
      (await apiClient(t).route('POST /articles', { body: article('rp-target', { status: 'published' }) })).status,
    ).toBe(200);
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([]);

    await apiClient(t).route('POST /articles', { body: article('rp-target', { status: 'draft' }) });
    await t.stack.drain();
    expect(await suppressedOf(linker)).toEqual([target]);
    expect((await readArticle(linker)).related_article_ids).toEqual([target]);
  });
});
