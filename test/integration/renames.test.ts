import { randomBytes } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, LIMITS } from '@cm/contract';
import { pageId } from '@cm/core';
import { removeRedirect, renamePage } from '@cm/publishing';
import type { PutResult, Store } from '@cm/store';
import { putBySlug } from '../../packages/publishing/src/slugs';
import { article, siteClient, useTestStack } from '../helpers/local';

/* Renames' store paths the HTTP tests do not reach: the redirect limit, slugs that change hands, races. */

const t = useTestStack();
const ROOT = 'https://example.test';
/** The workflows' context: the stack's store, and a queue that takes IndexNow's message and drops it (not what these tests check). */
const publishing = () => ({ store: t.store, enqueue: async () => undefined });
/** The test stacks' table (test/helpers/local.ts). */
const TABLE = 'content-test';

const refusal = async (promise: Promise<unknown>): Promise<{ code: string; status: number }> => {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return { code: error.code, status: error.status };
};

describe('renames in the store', () => {
  it(`keeps at most ${LIMITS.redirectsPerPage} redirects a page; removing one lets the next rename through`, async () => {
    const site = await siteClient(t, 'Limit site');
    const { id } = (await site.call('POST', '/articles', article('r-0'))).body;
    const page = { type: 'article' as const, id };
    // All but one of its redirects as if earlier renames had left them; the last one by a rename.
    const seeded = new Set(Array.from({ length: LIMITS.redirectsPerPage - 1 }, (_v, i) => `seed-${i}`));
    await t.db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: `SITE#${site.siteId}`, sk: `PAGE#article#${id}` },
        UpdateExpression: 'ADD redirect_slugs :seeded',
        ExpressionAttributeValues: { ':seeded': seeded },
      }),
    );
    await renamePage(publishing(), site.siteId, page, 'r-1', { siteRoot: ROOT });
    const over = await refusal(renamePage(publishing(), site.siteId, page, 'r-over', { siteRoot: ROOT }));
    expect(over).toEqual({ code: 'redirect_limit_reached', status: 409 });
    // Going back to an old slug takes one redirect away and adds one: within the limit.
    const back = await renamePage(publishing(), site.siteId, page, 'r-0', { siteRoot: ROOT });
    expect(back.redirects).toHaveLength(LIMITS.redirectsPerPage);
    await removeRedirect(publishing(), site.siteId, page, 'r-1', ROOT);
    const through = await renamePage(publishing(), site.siteId, page, 'r-over', { siteRoot: ROOT });
    expect([through.slug, through.redirects.length]).toEqual(['r-over', LIMITS.redirectsPerPage]);
  });

  it('passes a freed first slug from page to page: the slot keeps its page item and names each holder in turn', async () => {
    const site = await siteClient(t, 'Handover site');
    const first = (await site.call('POST', '/articles', article('shared'))).body.id;
    const other = (await site.call('POST', '/articles', article('other'))).body.id;
    await renamePage(publishing(), site.siteId, { type: 'article', id: first }, 'first-now', { siteRoot: ROOT });
    await removeRedirect(publishing(), site.siteId, { type: 'article', id: first }, 'shared', ROOT);
    // Another page takes the freed slug by a rename, then moves on: the slug redirects to it.
    await renamePage(publishing(), site.siteId, { type: 'article', id: other }, 'shared', { siteRoot: ROOT });
    expect((await site.call('GET', '/articles?slug=shared')).body.id).toBe(other);
    await renamePage(publishing(), site.siteId, { type: 'article', id: other }, 'other-now', { siteRoot: ROOT });
    const moved = await fetch(`${t.url}/sites/${site.siteId}/articles/shared`, { redirect: 'manual' });
    expect([moved.status, moved.headers.get('location')]).toEqual([
      301,
      `${t.url}/sites/${site.siteId}/articles/other-now`,
    ]);
    expect(
      await refusal(removeRedirect(publishing(), site.siteId, { type: 'article', id: first }, 'shared', ROOT)),
    ).toEqual({ code: 'not_found', status: 404 });
    await removeRedirect(publishing(), site.siteId, { type: 'article', id: other }, 'shared', ROOT);
    const taken = await site.call('POST', '/articles', article('shared', { title: 'Third' }));
    expect([taken.status, taken.body.id === first || taken.body.id === other]).toEqual([201, false]);
    expect(await t.store.redirects.slot(site.siteId, 'article', 'shared')).toEqual({
      holder: 'page',
      id: taken.body.id,
      slug: null,
    });
  });

  it('writes nothing of a large page refused for a reserved slug, chunks included', async () => {
    const site = await siteClient(t, 'Large site');
    const { id } = (await site.call('POST', '/articles', article('big'))).body;
    await renamePage(publishing(), site.siteId, { type: 'article', id }, 'big-now', { siteRoot: ROOT });
    const text = randomBytes(600 * 1024).toString('base64');
    const refused = await site.call('POST', '/articles', article('big', { body: [{ _type: 'paragraph', text }] }));
    expect(refused.status).toBe(409);
    const parts = await t.db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': `SITE#${site.siteId}`, ':sk': `PAGE#article#${id}#CHUNK#` },
      }),
    );
    expect(parts.Items).toEqual([]);
  });

  it('moves a slug only from the one the page has', async () => {
    const site = await siteClient(t, 'Move site');
    const { id } = (await site.call('POST', '/questions', { slug: 'q', question: 'Q?', answer: [] })).body;
    const page = { type: 'question' as const, id };
    const now = new Date().toISOString();
    expect(await t.store.redirects.moveSlug(site.siteId, page, { from: 'not-its-slug', to: 'q2', now })).toBe(false);
    expect(await t.store.redirects.unreserve(site.siteId, page, 'q', 'q')).toBe(false);
    expect((await t.store.redirects.redirectsOf(site.siteId, 'question', id))?.slug).toBe('q');
  });
});

describe('a publish whose slug changes hands while it runs', () => {
  const written = { created: true } as PutResult;
  const write = {
    siteId: 1,
    type: 'article' as const,
    id: pageId(1, 'article', 'x'),
    doc: { slug: 'x' },
    links: [],
    card: {},
    now: '2026-11-29T00:00:00.000Z',
  } as unknown as Parameters<typeof putBySlug>[1];
  /** A store whose slot reads `none` (the page that held the slug moved on) and whose writes answer `puts` in turn. */
  const storeOf = (puts: (PutResult | null)[]) =>
    ({
      pages: { put: jest.fn(async () => puts.shift() ?? null) },
      redirects: { slot: jest.fn(async () => ({ holder: 'none' })) },
    }) as unknown as Store;

  it('writes at the slot again when the slot changed meanwhile', async () => {
    const store = storeOf([null, written]);
    expect(await putBySlug(store, write)).toEqual({ id: write.id, put: written });
    expect(store.pages.put).toHaveBeenCalledTimes(2);
  });

  it('gives up with 409 after a few tries, having written nothing', async () => {
    const store = storeOf([]);
    expect(await refusal(putBySlug(store, write))).toEqual({ code: 'already_exists', status: 409 });
    expect(store.pages.put).toHaveBeenCalledTimes(3);
  });
});
