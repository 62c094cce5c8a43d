import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '@cm/contract';
import { publishPage } from '@cm/publishing';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pageId } from '@cm/core';
import {
  article,
  publishArticle,
  publishQuestion,
  requestPathCount,
  TEST_REQUEST_TIMEOUT_MS,
  useTestStack,
} from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { COUNTED_REQUESTS } from '../helpers/request-counts';

/* A page's revisions (docs/api/publishing.md#revisions): kept by a publish that changes the page, listed, and rolled back to. */

const t = useTestStack();
const client = () => apiClient(t);
const db = () => createDocumentClient({ endpoint: t.stack.dynamo.endpoint, requestTimeoutMs: TEST_REQUEST_TIMEOUT_MS });
const storeOf = (): Store => createStore(db(), t.stack.tableName);

const readArticle = async (id: string) => (await client().route('GET /articles/{id}', { params: { id } })).body;
const revisionsOf = async (id: string, query: { limit?: number; cursor?: string } = {}) =>
  (await client().route('GET /articles/{id}/revisions', { params: { id }, query })).body;
const restore = (id: string, revision_id: string) =>
  client().route('POST /articles/{id}/revisions/{revision_id}/restore', {
    params: { id, revision_id },
    body: undefined,
  });

describe('revisions', () => {
  it('keeps the version a changing publish replaced (body, fields, ai_model, updated_at, when stored), none for identical content', async () => {
    const first = await publishArticle(t, 'rev-kept', { excerpt: 'First words', ai_model: 'model-1' });
    const v1 = given((await readArticle(first.body.id)).revision, 'the live revision');
    // The same content again (updated_at moves by itself): no revision, and a new live one.
    await publishArticle(t, 'rev-kept', { excerpt: 'First words', ai_model: 'model-1' });
    const same = await revisionsOf(first.body.id);
    expect(same.items).toEqual([]);
    const v2 = same.live_revision;
    expect(v2).not.toBe(v1);

    await publishArticle(t, 'rev-kept', { excerpt: 'Second words', ai_model: 'model-2' });
    const page = await readArticle(first.body.id);
    const listed = await revisionsOf(first.body.id);
    expect(listed.live_revision).toBe(page.revision);
    expect(listed.items).toEqual([
      {
        revision_id: v2,
        slug: 'rev-kept',
        title: 'Title of rev-kept',
        status: 'published',
        updated_at: expect.any(String),
        ai_model: 'model-1',
        stored_at: expect.any(String),
        replaced_at: page.updated_at,
        expires_at: expect.any(String),
      },
    ]);
    const kept = given(listed.items[0], 'the revision');
    // TTL counts whole seconds.
    const keptFor = Date.parse(kept.expires_at) - Math.floor(Date.parse(kept.replaced_at) / 1000) * 1000;
    expect(keptFor).toBe(LIMITS.revisionsKeptDays * 86_400_000);
    // Its document, whole, is in an item of its own: the page item holds none of it.
    const stored = await storeOf().revisions.get(t.siteId, { type: 'article', id: first.body.id }, v2, page.updated_at);
    expect(stored?.doc).toMatchObject({ excerpt: 'First words', ai_model: 'model-1', body: article('rev-kept').body });
  });

  it('rolls back: a publish of the revision, which keeps what it replaced; a repeat changes nothing', async () => {
    const first = await publishArticle(t, 'rev-rollback', { excerpt: 'Good', ai_model: 'model-1', category: 'Guides' });
    const good = given((await readArticle(first.body.id)).revision, 'the good revision');
    await publishArticle(t, 'rev-rollback', { excerpt: 'Bad', ai_model: 'model-2', title: 'Broken' });
    const bad = given((await readArticle(first.body.id)).revision, 'the bad revision');

    const restored = await restore(first.body.id, good);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({
      id: first.body.id,
      slug: 'rev-rollback',
      created: false,
      status: 'published',
    });
    const page = await readArticle(first.body.id);
    expect(page).toMatchObject({
      excerpt: 'Good',
      ai_model: 'model-1',
      title: 'Title of rev-rollback',
      category: 'Guides',
    });
    expect(page.updated_at).toBe(restored.body.updated_at);
    const after = await revisionsOf(first.body.id);
    expect(after.live_revision).toBe(page.revision);
    expect(after.items.map((r) => r.revision_id)).toEqual([bad, good]);

    // Again: the content is the live one's, so no revision is kept, and the page reads the same, updated_at too.
    const repeated = await restore(first.body.id, good);
    expect(repeated.body.updated_at).toBe(page.updated_at);
    const again = await revisionsOf(first.body.id);
    expect(again.items.map((r) => r.revision_id)).toEqual([bad, good]);
    expect(await readArticle(first.body.id)).toMatchObject({
      excerpt: 'Good',
      title: 'Title of rev-rollback',
      updated_at: page.updated_at,
    });
  });

  it('rolls back what readers see: relink, listings, the sitemap and the feed follow', async () => {
    const target = await publishArticle(t, 'rev-target', { title: 'Target title' });
    const live = given((await readArticle(target.body.id)).revision, 'the live revision');
    const linking = await publishArticle(t, 'rev-linking', { copy: `See [it](page:${target.body.id})` });
    await publishArticle(t, 'rev-target', { title: 'Target title', status: 'draft' });
    await t.stack.drain();
    expect((await readArticle(linking.body.id)).suppressed_links.map((l) => l.id)).toEqual([target.body.id]);
    const visitorPath = `/sites/${t.siteId}/articles/rev-target`;
    expect((await t.call('GET', visitorPath, undefined, { key: null })).status).toBe(404);
    expect((await t.call('GET', `/sites/${t.siteId}/feed.xml`, undefined, { key: null })).text).not.toContain(
      'Target title',
    );

    await restore(target.body.id, live);
    await t.stack.drain();
    expect((await readArticle(linking.body.id)).suppressed_links).toEqual([]);
    expect((await t.call('GET', visitorPath, undefined, { key: null })).status).toBe(200);
    const feed = await t.call('GET', `/sites/${t.siteId}/feed.xml`, undefined, { key: null });
    expect(feed.text).toContain('Target title');
    const home = await t.call('GET', `/sites/${t.siteId}/`, undefined, { key: null });
    expect(home.text).toContain('Target title');
  });

  it('lists newest first in pages with a cursor; a cursor not its own is 400', async () => {
    const first = await publishArticle(t, 'rev-pages', { excerpt: 'v0' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.unshift(given((await readArticle(first.body.id)).revision, 'the live revision'));
      await publishArticle(t, 'rev-pages', { excerpt: `v${n}` });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await revisionsOf(first.body.id, { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((r) => r.revision_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(ids);
    const bad = await client().routeError('GET /articles/{id}/revisions', {
      params: { id: first.body.id },
      query: { cursor: 'not-a-cursor' },
    });
    expect(bad.status).toBe(400);
    const over = await client().routeError('GET /articles/{id}/revisions', {
      params: { id: first.body.id },
      query: { limit: LIMITS.revisionsPageMax + 1 },
    });
    expect(over.status).toBe(400);
  });

  it("answers 404 for another site's page, an unknown revision, and a page of another type", async () => {
    const first = await publishArticle(t, 'rev-private', { excerpt: 'one' });
    const revision = given((await readArticle(first.body.id)).revision, 'the live revision');
    await publishArticle(t, 'rev-private', { excerpt: 'two' });
    const other = apiClient(t, (await t.newSite()).key);
    const params = { id: first.body.id, revision_id: revision };
    for (const refused of [
      await other.routeError('GET /articles/{id}/revisions', { params: { id: first.body.id } }),
      await other.routeError('POST /articles/{id}/revisions/{revision_id}/restore', { params }),
      await client().routeError('POST /articles/{id}/revisions/{revision_id}/restore', {
        params: { ...params, revision_id: 'no-such-revision' },
      }),
      await client().routeError('GET /questions/{id}/revisions', { params: { id: first.body.id } }),
    ]) {
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe('not_found');
    }
    // Nothing was written: the page reads as before.
    expect((await readArticle(first.body.id)).excerpt).toBe('two');
  });

  it("keeps a question's revisions and rolls one back", async () => {
    const first = await publishQuestion(t, 'rev-question', { ai_model: 'model-q' });
    const id = first.body.id;
    const read = async () => (await client().route('GET /questions/{id}', { params: { id } })).body;
    const original = given((await read()).revision, 'the live revision');
    await publishQuestion(t, 'rev-question', { question: 'Changed?' });
    const listed = (await client().route('GET /questions/{id}/revisions', { params: { id } })).body;
    expect(listed.items.map((r) => [r.revision_id, r.title, r.ai_model])).toEqual([
      [original, 'What is rev-question?', 'model-q'],
    ]);
    await client().route('POST /questions/{id}/revisions/{revision_id}/restore', {
      params: { id, revision_id: original },
      body: undefined,
    });
    expect(await read()).toMatchObject({ question: 'What is rev-question?', ai_model: 'model-q' });
  });

  it(`keeps the newest ${LIMITS.revisionsKept} of a page, each until its time; a large document's in chunks`, async () => {
    const store = storeOf();
    const ctx = { store, enqueue: async () => {} };
    const siteRoot = `${t.url}/sites/${t.siteId}`;
    const at = Date.parse('2026-03-01T00:00:00.000Z');
    // Incompressible text: its gzipped document is over one item, so it is chunked, and so is its revision.
    const large = Array.from({ length: 6 }, () => ({ _type: 'paragraph', text: randomText(150_000) }));
    const publish = (n: number) =>
      publishPage(
        ctx,
        t.siteId,
        {
          type: 'article',
          value: { ...article('rev-bound'), excerpt: `v${n}`, body: n === 0 ? large : article('x').body },
        },
        { siteRoot, now: new Date(at + n * 60_000) },
      );
    const first = await publish(0);
    const page = { type: 'article' as const, id: first.id };
    for (let n = 1; n <= LIMITS.revisionsKept + 2; n++) await publish(n);
    const all = await store.revisions.list(t.siteId, page, { limit: 100, now: new Date(at).toISOString() });
    expect(all.items.map((r) => r.revision_id)).toHaveLength(LIMITS.revisionsKept);
    // The oldest went first: v0 (the large one) and v1 are gone, with v0's chunks.
    const excerpts = await Promise.all(
      all.items.map(
        async (r) => (await store.revisions.get(t.siteId, page, r.revision_id, new Date(at).toISOString()))?.doc,
      ),
    );
    expect(excerpts.map((doc) => (doc && 'excerpt' in doc ? doc.excerpt : null))).toEqual(
      Array.from({ length: LIMITS.revisionsKept }, (_v, i) => `v${LIMITS.revisionsKept + 1 - i}`),
    );
    const chunks = await db().send(
      new QueryCommand({
        TableName: t.stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `SITE#${t.siteId}#REVISION_CHUNK#article#${first.id}` },
      }),
    );
    expect(chunks.Items).toEqual([]);
    // Each revision expires (TTL) revisionsKeptDays after it was kept; past that it is neither listed nor restored.
    const newest = given(all.items[0], 'the newest revision');
    const end = new Date(newest.expires_at * 1000);
    expect(newest.expires_at - Date.parse(newest.replaced_at) / 1000).toBe(LIMITS.revisionsKeptDays * 86_400);
    expect(await store.revisions.get(t.siteId, page, newest.revision_id, end.toISOString())).toBeNull();
    const later = await store.revisions.list(t.siteId, page, { limit: 100, now: end.toISOString() });
    expect(later.items.map((r) => r.revision_id)).not.toContain(newest.revision_id);
  });

  it('keeps and restores a revision too large for one item (its chunks)', async () => {
    const store = storeOf();
    const ctx = { store, enqueue: async () => {} };
    const siteRoot = `${t.url}/sites/${t.siteId}`;
    const large = Array.from({ length: 6 }, () => ({ _type: 'paragraph', text: randomText(150_000) }));
    const first = await publishPage(
      ctx,
      t.siteId,
      { type: 'article', value: { ...article('rev-large'), body: large } },
      { siteRoot },
    );
    const original = given((await readArticle(first.id)).revision, 'the live revision');
    await publishArticle(t, 'rev-large');
    await restore(first.id, original);
    expect((await readArticle(first.id)).body).toEqual(large);
  });

  it('names a version stored before revisions were kept by its version, and tells its change from its document', async () => {
    const first = await publishArticle(t, 'rev-legacy', { excerpt: 'old' });
    const key = { pk: `SITE#${t.siteId}`, sk: `PAGE#article#${first.body.id}` };
    // The page item as a publish before revisions wrote it: no content hash, no stored_at.
    const legacy = await db().send(
      new UpdateCommand({
        TableName: t.stack.tableName,
        Key: key,
        UpdateExpression: 'REMOVE content_hash, stored_at',
        ReturnValues: 'ALL_NEW',
      }),
    );
    const version = String(legacy.Attributes?.version);
    expect((await readArticle(first.body.id)).revision).toBe(version);
    await publishArticle(t, 'rev-legacy', { excerpt: 'old' });
    expect((await revisionsOf(first.body.id)).items).toEqual([]);
    await db().send(
      new UpdateCommand({ TableName: t.stack.tableName, Key: key, UpdateExpression: 'REMOVE content_hash, stored_at' }),
    );
    const before = String((await readArticle(first.body.id)).revision);
    await publishArticle(t, 'rev-legacy', { excerpt: 'new' });
    expect((await revisionsOf(first.body.id)).items).toMatchObject([{ revision_id: before, stored_at: null }]);
  });

  it('answers 404 for a page not published yet, which pages link to (its mark is no page)', async () => {
    const awaited = pageId(t.siteId, 'article', 'rev-not-yet');
    await publishArticle(t, 'rev-awaiting', { copy: `Soon [it](page:${awaited})` });
    const refused = await client().routeError('GET /articles/{id}/revisions', { params: { id: awaited } });
    expect(refused.status).toBe(404);
  });

  it("costs a changing publish two requests more, in one round trip, and its refresh queue's one; an identical one none", async () => {
    const body = article('rev-counted', { excerpt: 'same' });
    await client().route('POST /articles', { body });
    await t.stack.drain();
    const same = await requestPathCount(t, () => client().route('POST /articles', { body }));
    expect([same.result.status, same.requests]).toEqual([200, COUNTED_REQUESTS.publishUnchanged]);
    const changed = await requestPathCount(t, () =>
      client().route('POST /articles', { body: { ...body, excerpt: 'changed' } }),
    );
    expect([changed.result.status, changed.requests]).toEqual([200, COUNTED_REQUESTS.publishChangedContent]);
  });
});

describe('revisions over MCP', () => {
  const call = async (mcp: Client, name: string, args: Record<string, unknown>) =>
    (await mcp.callTool({ name, arguments: args })) as CallToolResult;

  it('lists revisions and rolls back with list_revisions and restore_revision, scoped to the key', async () => {
    const mcp = new Client({ name: 'revisions', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'X-API-Key': t.key } } }),
    );
    try {
      const { tools } = await mcp.listTools();
      const restoreTool = given(
        tools.find((tool) => tool.name === 'restore_revision'),
        'restore_revision',
      );
      expect(restoreTool.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
      expect(tools.find((tool) => tool.name === 'list_revisions')?.annotations).toMatchObject({ readOnlyHint: true });

      const first = await publishArticle(t, 'rev-mcp', { excerpt: 'one' });
      const original = given((await readArticle(first.body.id)).revision, 'the live revision');
      await publishArticle(t, 'rev-mcp', { excerpt: 'two' });
      const listed = await call(mcp, 'list_revisions', { id: first.body.id });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toEqual(await revisionsOf(first.body.id));
      const restored = await call(mcp, 'restore_revision', { id: first.body.id, revision_id: original });
      expect(restored.isError).toBeFalsy();
      expect(restored.structuredContent).toMatchObject({ id: first.body.id, created: false });
      expect((await readArticle(first.body.id)).excerpt).toBe('one');

      const unknown = await call(mcp, 'restore_revision', { id: first.body.id, revision_id: 'nope' });
      expect(unknown.isError).toBe(true);
      expect((await call(mcp, 'list_revisions', { id: 'no-page-id' })).isError).toBe(true);
      const paged = await call(mcp, 'list_revisions', { id: first.body.id, limit: 1 });
      expect(paged.structuredContent).toEqual(await revisionsOf(first.body.id, { limit: 1 }));
      const other = new Client({ name: 'revisions-other', version: '1.0.0' });
      await other.connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
          requestInit: { headers: { 'X-API-Key': (await t.newSite()).key } },
        }),
      );
      try {
        expect((await call(other, 'list_revisions', { id: first.body.id })).isError).toBe(true);
        expect((await call(other, 'restore_revision', { id: first.body.id, revision_id: original })).isError).toBe(
          true,
        );
      } finally {
        await other.close();
      }
    } finally {
      await mcp.close();
    }
  });
});

/** Text gzip shrinks little: a document of it stays over one item once stored. */
const randomText = (length: number): string => randomBytes(length).toString('base64').slice(0, length);
