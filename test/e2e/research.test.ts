import { resetServices } from '@cm/runtime';
import { startTestStack, type TestStack } from '../helpers/local';

/* research, jobs and recall over HTTP on the sandbox, whose jobs take SANDBOX_RESEARCH_MS. */

let t: TestStack;
const saved = process.env.SANDBOX_RESEARCH_MS;
beforeAll(async () => {
  process.env.SANDBOX_RESEARCH_MS = '300';
  t = await startTestStack();
}, 60_000);
afterAll(async () => {
  await t.stop();
  if (saved === undefined) delete process.env.SANDBOX_RESEARCH_MS;
  else process.env.SANDBOX_RESEARCH_MS = saved;
});

async function site() {
  const created = await t.newSite('Research site', { domain: 'shoes.example.com', locale: 'US/en' });
  const tool = (name: string, body: unknown) => t.call('POST', `/v1/tools/${name}`, body, { key: created.key });
  const get = (path: string) => t.call('GET', path, undefined, { key: created.key });
  return { ...created, tool, get };
}

describe('research, keywords mode', () => {
  it.each([
    ['two seeds', 'running shoes, trail shoes'],
    ['six seeds', 'a, b, c, d, e, f'],
    ['a seed of four words', 'running shoes, trail shoes, best shoes for flat feet'],
    ['an empty seed', 'running shoes, , trail shoes, boots'],
  ])('refuses %s, naming the rule', async (_name, seed) => {
    const s = await site();
    const reply = await s.tool('research', { mode: 'keywords', seed });
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: 'seed', message: 'keywords mode takes 3 to 5 comma-separated seeds of 1 to 3 words each' }]);
  });

  it('answers inline with volume, cpc_usd and intent, and stores the seeds as ideas linked to the page', async () => {
    const s = await site();
    const page = (await s.tool('db_insert', { table: 'cm_pages', row: { title: 'Guide' } })).body.row;
    const reply = await s.tool('research', { mode: 'keywords', seed: 'Running Shoes, trail shoes, marathon training plan', page_id: page.id });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ data_source: 'sandbox', mode: 'keywords' });
    expect(reply.body.keywords.map((k: { keyword: string }) => k.keyword)).toEqual(['running shoes', 'trail shoes', 'marathon training plan']);
    for (const k of reply.body.keywords) {
      expect(k.volume).toBeGreaterThan(0);
      expect(typeof k.cpc_usd).toBe('number');
      expect(typeof k.intent).toBe('string');
    }
    const stored = await s.tool('db_select', { table: 'cm_keywords', where: { page_id: page.id } });
    expect(stored.body.rows).toHaveLength(3);
    expect(stored.body.rows.every((row: { is_idea: boolean }) => row.is_idea)).toBe(true);
  });
});

describe('research jobs', () => {
  it('waits for a web job and answers facts and opinions citing src-<n> sources; recall finds it, not another site', async () => {
    const s = await site();
    const reply = await s.tool('research', { mode: 'web', seed: 'How long do running shoes last?' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'succeeded', data_source: 'sandbox', job_id: expect.stringMatching(/^job_/), cached: false });
    const ids = reply.body.sources.map((source: { id: string }) => source.id);
    expect(ids[0]).toBe('src-1');
    for (const source of reply.body.sources) expect(source).toEqual({ id: expect.stringMatching(/^src-\d+$/), title: expect.any(String), url: expect.stringMatching(/^https:\/\//), accessed_at: expect.any(String) });
    for (const finding of [...reply.body.facts, ...reply.body.opinions]) {
      expect(finding.source_ids.length).toBeGreaterThan(0);
      for (const id of finding.source_ids) expect(ids).toContain(id);
    }

    const recalled = await s.tool('recall', { query: 'running shoes last' });
    expect(recalled.body.empty).toBe(false);
    expect(recalled.body.results[0]).toMatchObject({ research_id: reply.body.research_id, mode: 'web', query: 'How long do running shoes last?' });
    expect((await s.tool('recall', { query: 'sourdough starter' })).body).toMatchObject({ results: [], empty: true });
    expect((await s.tool('recall', { query: 'running shoes', mode: 'reddit' })).body.empty).toBe(true);
    const other = await site();
    expect((await other.tool('recall', { query: 'running shoes last' })).body).toMatchObject({ results: [], empty: true });
  });

  it('answers running with wait_ms 0, and GET /v1/jobs collects the result; another site gets 404', async () => {
    const s = await site();
    const started = await s.tool('research', { mode: 'reddit', seed: 'best budget running shoes', wait_ms: 0 });
    expect(started.body).toMatchObject({ job_id: expect.stringMatching(/^job_/), status: expect.stringMatching(/^(queued|running)$/), cached: false });
    expect(started.body.facts).toBeUndefined();
    const done = await s.get(`/v1/jobs/${started.body.job_id}?wait_ms=10000`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ job_id: started.body.job_id, tool: 'research', status: 'succeeded', result: { research_id: expect.any(String) } });
    expect(done.body.result.sources[0].url).toMatch(/^https:\/\/www\.reddit\.com\/r\//);
    const other = await site();
    expect((await other.get(`/v1/jobs/${started.body.job_id}`)).status).toBe(404);
    expect((await s.get('/v1/jobs/job_nope')).status).toBe(400);
  });

  it('answers a repeated query from storage, with no new provider call', async () => {
    const s = await site();
    const first = await s.tool('research', { mode: 'web', seed: 'Carbon plate running shoes' });
    const calls = (await s.get('/v1/usage')).body.calls;
    const again = await s.tool('research', { mode: 'web', seed: '  carbon plate   RUNNING shoes ' });
    expect(again.body).toMatchObject({ status: 'succeeded', job_id: null, cached: true, cost_usd: 0, research_id: first.body.research_id });
    expect((await s.get('/v1/usage')).body.calls).toBe(calls);
  });

  it('lets 10 of 100 concurrent web calls in, refuses 90 with the spec\'s error object, and frees all 10 places after', async () => {
    // Jobs slow enough that none ends while the 100 calls arrive.
    process.env.SANDBOX_RESEARCH_MS = '3000';
    resetServices();
    const s = await site();
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_v, i) => s.tool('research', { mode: 'web', seed: `running question number ${i}`, wait_ms: 0 })),
    );
    const accepted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(90);
    for (const r of refused) {
      expect(r.body).toMatchObject({ error: 'concurrency_limit_exceeded', max_concurrent: 10, retry_after_ms: 30000 });
      expect(r.headers.get('retry-after')).toBe('30');
    }
    expect((await t.store.researchSlots.state()).inflight).toBe(10);
    await t.stack.drain();
    expect(await t.store.researchSlots.state()).toEqual({ inflight: 0, leases: {} });
    process.env.SANDBOX_RESEARCH_MS = '300';
    resetServices();
    for (const r of accepted) expect((await s.get(`/v1/jobs/${r.body.job_id}`)).body.status).toBe('succeeded');
  });

  it('takes only https URLs in url mode, and a question only there', async () => {
    const s = await site();
    const http = await s.tool('research', { mode: 'url', seed: 'http://example.com/page' });
    expect(http.status).toBe(400);
    expect(http.body.issues).toEqual([{ path: 'seed', message: 'url mode takes an https URL' }]);
    expect((await s.tool('research', { mode: 'web', seed: 'shoes', question: 'why?' })).body.issues[0].path).toBe('question');
    for (const url of ['https://127.0.0.1/', 'https://169.254.169.254/latest/meta-data/', 'https://[::1]/', 'https://localhost:8443/x', 'https://10.0.0.7/', 'https://[::ffff:127.0.0.1]/']) {
      const refused = await s.tool('research', { mode: 'url', seed: url });
      expect([url, refused.status]).toEqual([url, 400]);
      expect(refused.body.issues[0]).toMatchObject({ path: 'seed', message: expect.stringContaining('public addresses only') });
    }
    expect(await t.store.researchSlots.state()).toMatchObject({ inflight: 0 }); // refused before taking a place
  });
});
