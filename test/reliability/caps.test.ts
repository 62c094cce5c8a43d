import { siteClient, article, startTestStack, type TestStack } from '../helpers/local';

/*
 * The caps under 100 concurrent callers (test/e2e has each at lower concurrency): 10 research places,
 * 20 SERP refreshes per site per day, 10 active competitors, and one id per slug under 50 concurrent
 * first publishes.
 */

const CALLERS = 100;

let t: TestStack;
beforeAll(async () => {
  // Research jobs long enough that none ends while the 100 calls arrive.
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '3000' } });
}, 60_000);
afterAll(() => t.stop());

const statuses = (replies: { status: number }[]) =>
  replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});
const concurrently = <T>(n: number, call: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_v, i) => call(i)));

it(`lets exactly 10 of ${CALLERS} concurrent research calls of 4 sites in, at most 5 a site; 90 get 429`, async () => {
  const sites = await Promise.all(
    Array.from({ length: 4 }, (_v, n) => siteClient(t, `Research caps ${n}`, { domain: `research-${n}.example.com` })),
  );
  const replies = await concurrently(CALLERS, (i) =>
    sites[i % 4]!.tool('research', { mode: 'web', seed: `concurrent research question ${i}`, wait_ms: 0 }),
  );
  const perSite = sites.map((_s, n) => replies.filter((r, i) => i % 4 === n && r.status === 200).length);
  expect(Math.max(...perSite)).toBeLessThanOrEqual(5);
  console.log(`reliability: research places, ${CALLERS} concurrent callers: ${JSON.stringify(statuses(replies))}`);
  expect(statuses(replies)).toEqual({ 200: 10, 429: 90 });
  for (const r of replies.filter((r) => r.status === 429)) expect(r.body.code).toBe('concurrency_limit_exceeded');
  await t.stack.drain();
  expect(await t.store.researchSlots.state()).toEqual({ inflight: 0, leases: {}, groups: {} });
});

it(`allows exactly 20 SERP refreshes of ${CALLERS} concurrent calls per site per day; 80 get 429`, async () => {
  const s = await siteClient(t, 'Refresh caps', { domain: 'refresh.example.com', locale: 'US/en' });
  const replies = await concurrently(CALLERS, (i) =>
    s.tool('serp_keyword_refresh', { keyword: `running shoes ${i % 13}` }),
  );
  console.log(`reliability: serp_keyword_refresh, ${CALLERS} concurrent callers: ${JSON.stringify(statuses(replies))}`);
  expect(statuses(replies)).toEqual({ 200: 20, 429: 80 });
  for (const r of replies.filter((r) => r.status === 429)) expect(r.body.code).toBe('quota_exceeded');
  expect(
    replies
      .filter((r) => r.status === 200)
      .map((r) => r.body.quota.used)
      .sort((a, b) => a - b),
  ).toEqual(Array.from({ length: 20 }, (_v, i) => i + 1));
});

it(`tracks exactly 10 of ${CALLERS} concurrent add_competitor calls of distinct domains; 90 get 409`, async () => {
  const s = await siteClient(t, 'Competitor caps', { domain: 'competitors.example.com' });
  const replies = await concurrently(CALLERS, (i) => s.tool('add_competitor', { domain: `rival-${i}.com` }));
  console.log(`reliability: add_competitor, ${CALLERS} concurrent callers: ${JSON.stringify(statuses(replies))}`);
  expect(statuses(replies)).toEqual({ 200: 10, 409: 90 });
  for (const r of replies.filter((r) => r.status === 409))
    expect(r.body).toMatchObject({ code: 'competitor_limit_reached', max_active: 10 });
  const rows = (await s.tool('db_select', { table: 'cm_competitors', limit: 200 })).body.rows as { active: boolean }[];
  expect(rows.filter((row) => row.active)).toHaveLength(10);
  await t.stack.drain();
});

it('gives 50 concurrent first publishes of one slug one id, exactly one of them created', async () => {
  const s = await siteClient(t, 'Slug caps', { domain: 'slugs.example.com' });
  const replies = await concurrently(50, (i) =>
    s.call('POST', '/articles', article('one-slug-many-writers', { title: `Writer ${i}` })),
  );
  const ids = new Set(replies.map((r) => r.body.id as string));
  const created = replies.filter((r) => r.body.created === true);
  console.log(
    `reliability: 50 concurrent first publishes of one slug: ${ids.size} id, ${created.length} created, ${JSON.stringify(statuses(replies))}`,
  );
  expect(ids.size).toBe(1);
  expect(created).toHaveLength(1);
  expect(statuses(replies)).toEqual({ 200: 49, 201: 1 });
  const list = await s.call('GET', '/articles');
  expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([...ids]);
});
