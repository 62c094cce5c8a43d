import { MCP_PATH } from '@cm/contract';
import { article, question, siteClient, startTestStack, type SiteClient, type TestStack } from '../helpers/local';

/*
 * Tenant isolation: site B's key against every route that takes a key, with every id of site A (pages,
 * jobs, rows of each cm_* table), and the MCP tools. No reply to B carries anything of A, and A is as it
 * was afterwards.
 */

/** In every text of site A, so any of it in a reply to B is found. */
const MARK = 'zqxalpha';
/** What B searches for: finds A's texts if it could see them, yet echoed back it is not MARK. */
const SEARCH = MARK.slice(0, -1);
const TABLES = ['cm_topics', 'cm_pages', 'cm_keywords', 'cm_topic_keywords', 'cm_competitors'] as const;

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '50' } });
}, 60_000);
afterAll(() => t.stop());

interface SiteA {
  pages: { type: 'articles' | 'questions'; id: string; slug: string }[];
  jobs: string[];
  rows: Record<(typeof TABLES)[number], number[]>;
}

async function ok(reply: Promise<{ status: number; body: any; text: string }>) {
  const r = await reply;
  if (r.status >= 300) throw new Error(`set-up call answered ${r.status}: ${r.text}`);
  return r.body;
}

/** Site A: pages with a summary and a community answer, research jobs, rows in every table, paid calls in the ledger, a budget, competitors. */
async function seedA(a: SiteClient): Promise<SiteA> {
  const pages: SiteA['pages'] = [];
  for (let i = 0; i < 2; i++) {
    const slug = `${MARK}-article-${i}`;
    pages.push({
      type: 'articles',
      slug,
      id: (await ok(a.call('POST', '/articles', article(slug, { title: `${MARK} title ${i}` })))).id,
    });
    const qSlug = `${MARK}-question-${i}`;
    const q = (await ok(a.call('POST', '/questions', question(qSlug, { question: `${MARK} question ${i}?` }))))
      .id as string;
    pages.push({ type: 'questions', slug: qSlug, id: q });
    await ok(a.call('PUT', `/questions/${q}/summary`, { summary: `${MARK} summary` }));
    await ok(
      a.call('POST', `/questions/${q}/answers`, {
        author: `${MARK} reader`,
        blocks: [{ _type: 'paragraph', text: MARK }],
      }),
    );
  }
  const topic = (await ok(a.tool('db_insert', { table: 'cm_topics', row: { name: `${MARK} topic` } }))).row
    .id as number;
  const page = (await ok(a.tool('db_insert', { table: 'cm_pages', row: { title: `${MARK} page`, topic_id: topic } })))
    .row.id as number;
  const keyword = (await ok(a.tool('db_insert', { table: 'cm_keywords', row: { keyword: `${MARK} shoes` } }))).row
    .id as number;
  const link = (
    await ok(a.tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topic, keyword_id: keyword } }))
  ).row.id as number;
  const competitor = (
    await ok(a.tool('add_competitor', { domain: `${MARK}-rival.com`, display_name: `${MARK} rival` }))
  ).competitor.id as number;
  // Paid calls in A's ledger, and ideas and SERPs of A's own.
  await ok(a.tool('get_keywords', { topic_id: topic, seeds: [`${MARK} trail`] }));
  await ok(a.tool('serp_keyword_refresh', { keyword: `${MARK} shoes` }));
  const jobs: string[] = [];
  for (const mode of ['web', 'reddit'])
    jobs.push((await ok(a.tool('research', { mode, seed: `${MARK} ${mode} research question`, wait_ms: 0 }))).job_id);
  await ok(a.call('PUT', '/v1/budget', { daily_usd: 777.77, monthly_usd: 7777.77 }));
  await t.stack.drain();
  return {
    pages,
    jobs,
    rows: {
      cm_topics: [topic],
      cm_pages: [page],
      cm_keywords: [keyword],
      cm_topic_keywords: [link],
      cm_competitors: [competitor],
    },
  };
}

/** All of A that a reply could show, read with A's own key. */
async function stateOf(a: SiteClient, seeded: SiteA) {
  const state: Record<string, unknown> = {};
  for (const p of seeded.pages) state[p.id] = (await a.call('GET', `/${p.type}/${p.id}`)).body;
  for (const table of TABLES) state[table] = (await a.tool('db_select', { table, limit: 200 })).body.rows;
  for (const job of seeded.jobs) state[job] = (await a.call('GET', `/v1/jobs/${job}`)).body;
  // The ledger as of now: its `to` moves on by itself.
  const { to: _now, ...usage } = (await a.call('GET', '/v1/usage')).body as Record<string, unknown>;
  state.usage = usage;
  state.budget = (await a.call('GET', '/v1/budget')).body;
  return state;
}

const mcp = (b: SiteClient, name: string, args: unknown) =>
  b.call(
    'POST',
    MCP_PATH,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    { accept: 'application/json, text/event-stream' },
  );

/** Every route that takes a key, with B's key, aimed at A's ids. */
function probes(b: SiteClient, a: SiteClient, A: SiteA) {
  /** Each probe with what it sent: an id B sent, echoed in a 404, is no leak. */
  const calls: { sent: string; run: () => Promise<{ status: number; text: string }> }[] = [];
  const add = (method: string, path: string, body?: unknown) =>
    calls.push({ sent: path + JSON.stringify(body), run: () => b.call(method, path, body) });
  const tool = (name: string, body: unknown) => add('POST', `/v1/tools/${name}`, body);
  const viaMcp = (name: string, args: unknown) =>
    calls.push({ sent: JSON.stringify(args), run: () => mcp(b, name, args) });
  for (const p of A.pages) {
    add('GET', `/${p.type}/${p.id}`);
    add('GET', `/${p.type}?slug=${p.slug}`);
    add('POST', '/api/content/notify', {
      id: p.id,
      type: p.type === 'articles' ? 'article' : 'question',
      action: 'deleted',
    });
    add('POST', '/api/content/notify', {
      id: p.id,
      type: p.type === 'articles' ? 'article' : 'question',
      status: 'draft',
      updated_at: '2030-01-01T00:00:00Z',
    });
    if (p.type === 'questions') {
      add('PUT', `/questions/${p.id}/summary`, { summary: 'B was here' });
      add('POST', `/questions/${p.id}/answers`, { author: 'B', blocks: [{ _type: 'paragraph', text: 'B' }] });
    }
    // A's slug, with A's site id claimed: refused.
    add(
      'POST',
      `/${p.type}`,
      p.type === 'articles' ? article(p.slug, { site_id: a.siteId }) : question(p.slug, { site_id: a.siteId }),
    );
    viaMcp('find_pages', { query: SEARCH });
  }
  for (const type of ['articles', 'questions']) add('GET', `/${type}?limit=100`);
  for (const job of A.jobs) {
    add('GET', `/v1/jobs/${job}`);
    add('GET', `/v1/jobs/${job}?wait_ms=0`);
    viaMcp('get_job', { job_id: job });
  }
  for (const [table, ids] of Object.entries(A.rows)) {
    tool('db_select', { table, limit: 200 });
    for (const id of ids) {
      tool('db_select', { table, where: { id } });
      tool('db_delete', { table, id });
      viaMcp('db_select', { table, where: { id } });
      viaMcp('db_delete', { table, id });
    }
  }
  const [topic] = A.rows.cm_topics;
  const [keyword] = A.rows.cm_keywords;
  const [page] = A.rows.cm_pages;
  tool('db_insert', { table: 'cm_pages', row: { title: 'B page', topic_id: topic } });
  tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topic, keyword_id: keyword } });
  tool('get_keywords', { topic_id: topic });
  tool('get_keywords', { keyword_id: keyword });
  tool('serp_landscape', { topic_id: topic, depth: 'list' });
  tool('serp_landscape', { page_id: page });
  tool('research', { mode: 'keywords', seed: 'trail shoes, road shoes, hiking boots', page_id: page, wait_ms: 0 });
  tool('recall', { query: SEARCH });
  tool('serp_backlinks', { scope: 'all' });
  tool('db_select', { table: 'cm_keywords', where: { keyword: `${SEARCH} shoes` } });
  add('GET', '/v1/usage');
  add('GET', '/v1/budget');
  add('PUT', '/v1/budget', { daily_usd: 1 });
  add('GET', '/v1/tools');
  viaMcp('get_usage', {});
  viaMcp('find_pages', {});
  viaMcp('recall', { query: SEARCH });
  viaMcp('serp_backlinks', { scope: 'all' });
  return calls;
}

it("gives site B's key nothing of site A's, on every route and MCP tool, and leaves A as it was", async () => {
  const a = await siteClient(t, 'Site A', { domain: `${MARK}.example.com`, locale: 'US/en' });
  const b = await siteClient(t, 'Site B', { domain: 'b.example.com', locale: 'US/en' });
  const A = await seedA(a);
  const before = await stateOf(a, A);
  const secrets = [MARK, ...A.pages.map((p) => p.id), ...A.jobs, '777.77', a.key];

  const leaks: string[] = [];
  const calls = probes(b, a, A);
  for (const probe of calls) {
    const reply = await probe.run();
    expect(reply.status).toBeLessThan(500);
    const found = secrets.filter((secret) => reply.text.includes(secret) && !probe.sent.includes(secret));
    if (found.length > 0) leaks.push(`${reply.status} ${reply.text.slice(0, 300)} holds ${found.join(', ')}`);
  }
  await t.stack.drain();
  const after = await stateOf(a, A);
  console.log(
    `reliability: tenant isolation, ${calls.length} probes with site B's key at site A's data, ${leaks.length} leaks, A ${JSON.stringify(after) === JSON.stringify(before) ? 'unchanged' : 'CHANGED'}`,
  );
  expect(leaks).toEqual([]);
  expect(after).toEqual(before);
}, 120_000);
