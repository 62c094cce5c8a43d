import { article, question, startTestStack, type TestStack } from '../helpers/local';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => {
  await t.stop();
});

const notify = (body: Record<string, unknown>, key?: string) => t.call('POST', '/api/content/notify', body, key ? { key } : {});
const state = async (id: string) => {
  const page = (await t.call('GET', `/articles/${id}`)).body;
  return { status: page.status, live: page.live };
};
const publishArticle = async (slug: string, extra: Record<string, unknown> = {}) => (await t.call('POST', '/articles', article(slug, extra))).body.id as string;

describe('POST /api/content/notify: the state table (spec §3)', () => {
  it('takes a published page down on action unpublished without status, and queues relink', async () => {
    const id = await publishArticle('n-unpublish');
    expect((await notify({ id, type: 'article', action: 'unpublished' })).body).toEqual({ ok: true, matched: true, relink: 'queued' });
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await t.call('GET', `/sites/${t.siteId}/articles/n-unpublish`, undefined, { key: null })).status).toBe(404);
  });

  it('counts deleted as unpublished and remembers it: visitors get 410', async () => {
    const id = await publishArticle('n-delete');
    expect((await notify({ id, type: 'article', action: 'deleted' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await t.call('GET', `/sites/${t.siteId}/articles/n-delete`, undefined, { key: null })).status).toBe(410);
  });

  it('treats a notify with neither status nor action as still live, relink skipped', async () => {
    const id = await publishArticle('n-neither');
    expect((await notify({ id, type: 'article' })).body).toEqual({ ok: true, matched: true, relink: 'skipped' });
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
    expect((await notify({ id, type: 'article', status: 'published', action: 'unpublished' })).body.relink).toBe('skipped');
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
    expect((await t.call('GET', `/sites/${t.siteId}/articles/n-back`, undefined, { key: null })).status).toBe(200);
  });

  it('works for questions, and lists the stored status', async () => {
    const q = (await t.call('POST', '/questions', question('n-question'))).body.id;
    expect((await notify({ id: q, type: 'question', action: 'unpublished' })).body).toEqual({ ok: true, matched: true, relink: 'queued' });
    const drafts = (await t.call('GET', '/questions?status=draft')).body.items.map((i: { id: string }) => i.id);
    expect(drafts).toContain(q);
    const published = (await t.call('GET', '/questions?status=published')).body.items.map((i: { id: string }) => i.id);
    expect(published).not.toContain(q);
  });

  it('answers matched false (ok true, relink skipped) for an id it does not know, another type, or another site', async () => {
    const unknown = { ok: true, matched: false, relink: 'skipped' };
    expect((await notify({ id: 'art_zzzzzzzzzzzzzzzz', type: 'article', action: 'deleted' })).body).toEqual(unknown);
    expect((await notify({ id: 'some-site-page-42', type: 'article', action: 'deleted' })).body).toEqual(unknown);
    const id = await publishArticle('n-other-site');
    expect((await notify({ id, type: 'question', action: 'deleted' })).body).toEqual(unknown);
    const other = await t.newSite();
    expect((await notify({ id, type: 'article', action: 'deleted' }, other.key)).body).toEqual(unknown);
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('validates the payload and needs a key', async () => {
    const bad = await notify({ id: 'x', type: 'page', action: 'moved' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['action', 'type']);
    expect((await t.call('POST', '/api/content/notify', { id: 'x', type: 'article' }, { key: null })).status).toBe(401);
    expect((await notify({ id: 'art_zzzzzzzzzzzzzzzz', type: 'article', extra: 1 })).status).toBe(200);
  });
});

describe('out-of-order and repeated deliveries', () => {
  it('ignores a notify older than the newest applied, and changes nothing on a repeat', async () => {
    const id = await publishArticle('n-order');
    const down = { id, type: 'article', action: 'unpublished', updated_at: '2026-05-02T10:00:00Z' };
    expect((await notify(down)).body.relink).toBe('queued');
    // An older "published" arrives late: it changes nothing.
    expect((await notify({ id, type: 'article', action: 'published', updated_at: '2026-05-02T09:00:00Z' })).body).toEqual({
      ok: true,
      matched: true,
      relink: 'skipped',
    });
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await notify(down)).body.relink).toBe('skipped');
    expect(await state(id)).toEqual({ status: 'draft', live: false });
    expect((await notify({ id, type: 'article', action: 'published', updated_at: '2026-05-02T11:00:00Z' })).body.relink).toBe('queued');
    expect(await state(id)).toEqual({ status: 'published', live: true });
  });

  it('gives exactly one queued relink to concurrent identical notifies', async () => {
    const id = await publishArticle('n-concurrent');
    const replies = await Promise.all(Array.from({ length: 6 }, () => notify({ id, type: 'article', action: 'deleted', updated_at: '2026-06-01T00:00:00Z' })));
    expect(replies.map((r) => r.body.relink).sort()).toEqual(['queued', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  });
});

describe('relink', () => {
  it("rewrites a linking page's copy and related ids when the target goes down, and restores them byte for byte", async () => {
    const target = await publishArticle('r-target');
    const other = await publishArticle('r-other');
    const q = await publishArticle('r-linker', { title: 'Linker' });
    const copy = `Intro [the target](page:${target}) and\r\n\t[other](page:${other}); again [t2](page:${target}) — ünï.`;
    const published = await t.call(
      'POST',
      '/articles',
      article('r-linker', {
        title: 'Linker',
        copy,
        related_article_ids: [other, target],
        related_question_ids: [],
        excerpt: 'kept',
      }),
    );
    expect(published.body.id).toBe(q);
    const before = (await t.call('GET', `/articles/${q}`)).body;

    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    const down = (await t.call('GET', `/articles/${q}`)).body;
    expect(down.copy).toBe(`Intro the target and\r\n\t[other](page:${other}); again t2 — ünï.`);
    expect(down.related_article_ids).toEqual([other]);
    expect(down.updated_at > before.updated_at).toBe(true);
    const { copy: _c1, related_article_ids: _r1, updated_at: _u1, ...restBefore } = before;
    const { copy: _c2, related_article_ids: _r2, updated_at: _u2, ...restDown } = down;
    expect(restDown).toEqual(restBefore);

    // The same relink message again changes nothing more.
    const message = JSON.stringify({ site_id: t.siteId, target_id: target, target_type: 'article' });
    await t.stack.queues.relink.send(message);
    await t.stack.queues.relink.send(message);
    await t.stack.drain();
    expect((await t.call('GET', `/articles/${q}`)).body).toEqual(down);

    await notify({ id: target, type: 'article', action: 'published' });
    await t.stack.drain();
    const up = (await t.call('GET', `/articles/${q}`)).body;
    expect(up.copy).toBe(copy);
    expect(up.related_article_ids).toEqual([other, target]);
    expect(up.updated_at > down.updated_at).toBe(true);

    await t.stack.queues.relink.send(message);
    await t.stack.drain();
    expect((await t.call('GET', `/articles/${q}`)).body).toEqual(up);
    expect(t.stack.queues.relink.deadLetters).toEqual([]);
  });

  it('relinks questions linking by related ids, and follows republishes of the linking page', async () => {
    const target = (await t.call('POST', '/questions', question('r-q-target'))).body.id;
    const linker = (await t.call('POST', '/questions', question('r-q-linker', { related_question_ids: [target] }))).body.id;
    const dropped = (await t.call('POST', '/questions', question('r-q-dropped', { related_question_ids: [target] }))).body.id;
    // The second linker stops linking before the target goes down: the index follows the republish.
    await t.call('POST', '/questions', question('r-q-dropped', { related_question_ids: [] }));
    const droppedBefore = (await t.call('GET', `/questions/${dropped}`)).body;

    await notify({ id: target, type: 'question', status: 'draft' });
    await t.stack.drain();
    expect((await t.call('GET', `/questions/${linker}`)).body.related_question_ids).toEqual([]);
    expect((await t.call('GET', `/questions/${dropped}`)).body).toEqual(droppedBefore);

    // Republished while the target is down, the linker keeps the link out until the target is back.
    await t.call('POST', '/questions', question('r-q-linker', { related_question_ids: [target], topics: ['new'] }));
    expect((await t.call('GET', `/questions/${linker}`)).body.related_question_ids).toEqual([]);
    await notify({ id: target, type: 'question', status: 'published' });
    await t.stack.drain();
    expect((await t.call('GET', `/questions/${linker}`)).body).toMatchObject({ related_question_ids: [target], topics: ['new'] });
  });

  it('forgets a suppressed link the linking page no longer has, so re-adding it later shows it', async () => {
    const target = await publishArticle('r-forget-target');
    const linker = await publishArticle('r-forget-linker', { related_article_ids: [target] });
    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    await t.call('POST', '/articles', article('r-forget-linker', { related_article_ids: [] }));
    await notify({ id: target, type: 'article', action: 'published' });
    await t.stack.drain();
    await t.call('POST', '/articles', article('r-forget-linker', { related_article_ids: [target] }));
    expect((await t.call('GET', `/articles/${linker}`)).body.related_article_ids).toEqual([target]);
  });
});

describe('relink on republish', () => {
  it('restores links when the editor republishes a page the site had taken down, and removes them when it publishes it as draft', async () => {
    const target = await publishArticle('rp-target');
    const linker = await publishArticle('rp-linker', { related_article_ids: [target] });
    await notify({ id: target, type: 'article', action: 'unpublished' });
    await t.stack.drain();
    expect((await t.call('GET', `/articles/${linker}`)).body.related_article_ids).toEqual([]);

    expect((await t.call('POST', '/articles', article('rp-target', { status: 'published' }))).status).toBe(200);
    await t.stack.drain();
    expect((await t.call('GET', `/articles/${linker}`)).body.related_article_ids).toEqual([target]);

    await t.call('POST', '/articles', article('rp-target', { status: 'draft' }));
    await t.stack.drain();
    expect((await t.call('GET', `/articles/${linker}`)).body.related_article_ids).toEqual([]);
  });
});
