import * as dns from 'node:dns';
import { resetServices } from '@cm/runtime';
import { startTestStack, withStackEnv, type TestStack } from '../helpers/local';

/* research, jobs, recall and analyze over HTTP on the sandbox, whose jobs take SANDBOX_RESEARCH_MS. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '300' } });
}, 60_000);
afterAll(() => t.stop());

async function site() {
  const created = await t.newSite('Research site', { domain: 'shoes.example.com', locale: 'US/en' });
  const tool = (name: string, body: unknown) => t.call('POST', `/v1/tools/${name}`, body, { key: created.key });
  const get = (path: string) => t.call('GET', path, undefined, { key: created.key });
  return { ...created, tool, get };
}

/** Runs a test on sandbox jobs of another length (and leases of another length), then restores both. */
const withTimings = (env: { SANDBOX_RESEARCH_MS: string; RESEARCH_LEASE_MS?: string }, run: () => Promise<void>) =>
  withStackEnv(t, env, run);

/** The count never drifts from the number of live leases. */
async function slotsConsistent() {
  const state = await t.store.researchSlots.state();
  expect(state.inflight).toBe(Object.keys(state.leases).length);
  return state;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('research, keywords mode', () => {
  it.each([
    ['two seeds', 'running shoes, trail shoes'],
    ['six seeds', 'a, b, c, d, e, f'],
    ['a seed of four words', 'running shoes, trail shoes, best shoes for flat feet'],
    ['an empty seed', 'running shoes, , trail shoes, boots'],
    ['one seed three times', 'a, a, a'],
    ['three seeds of which two are the same once normalized', 'Running Shoes, running   shoes , trail shoes'],
  ])('refuses %s, naming the rule', async (_name, seed) => {
    const s = await site();
    const reply = await s.tool('research', { mode: 'keywords', seed });
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([
      { path: 'seed', message: 'keywords mode takes 3 to 5 distinct comma-separated seeds of 1 to 3 words each' },
    ]);
  });

  it('counts seeds distinct: five seeds of which three are different pass, and each is looked up once', async () => {
    const s = await site();
    const reply = await s.tool('research', {
      mode: 'keywords',
      seed: 'running shoes, Running Shoes, trail shoes, trail  shoes, boots',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.keywords.map((k: { keyword: string }) => k.keyword)).toEqual([
      'running shoes',
      'trail shoes',
      'boots',
    ]);
  });

  it('answers inline with volume, cpc_usd and intent, and stores the seeds as ideas linked to the page', async () => {
    const s = await site();
    const page = (await s.tool('db_insert', { table: 'cm_pages', row: { title: 'Guide' } })).body.row;
    const reply = await s.tool('research', {
      mode: 'keywords',
      seed: 'Running Shoes, trail shoes, marathon training plan',
      page_id: page.id,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ data_source: 'sandbox', mode: 'keywords' });
    expect(reply.body.keywords.map((k: { keyword: string }) => k.keyword)).toEqual([
      'running shoes',
      'trail shoes',
      'marathon training plan',
    ]);
    for (const k of reply.body.keywords) {
      expect(k.volume).toBeGreaterThan(0);
      expect(typeof k.cpc_usd).toBe('number');
      expect(typeof k.intent).toBe('string');
    }
    const stored = await s.tool('db_select', { table: 'cm_keywords', where: { page_id: page.id } });
    expect(stored.body.rows).toHaveLength(3);
    expect(stored.body.rows.every((row: { is_idea: boolean }) => row.is_idea)).toBe(true);
  });

  it("keeps the page's own keywords and committed ones committed; only new candidates are ideas (audit)", async () => {
    const s = await site();
    const page = (
      await s.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Canoes', primary_keyword: 'canoe guide', secondary_keywords: ['canoe fit', 'canoe care'] },
      })
    ).body.row;
    const topic = (await s.tool('db_insert', { table: 'cm_topics', row: { name: 'Paddling' } })).body.row;
    expect((await s.tool('get_keywords', { topic_id: topic.id, seeds: ['kayak paddles'] })).status).toBe(200);

    const reply = await s.tool('research', {
      mode: 'keywords',
      seed: 'canoe guide, canoe fit, canoe care, kayak paddles, canoe paint',
      page_id: page.id,
    });
    expect(reply.status).toBe(200);
    const rows = (await s.tool('db_select', { table: 'cm_keywords', limit: 100 })).body.rows as {
      keyword: string;
      is_idea: boolean;
    }[];
    const ideaOf = Object.fromEntries(rows.map((row) => [row.keyword, row.is_idea]));
    expect(ideaOf).toEqual({
      'canoe guide': false,
      'canoe fit': false,
      'canoe care': false,
      'kayak paddles': false,
      'canoe paint': true,
    });

    // Page scope covers all of the page's keywords, and one of them is a list target on its own.
    const list = await s.tool('serp_landscape', { page_id: page.id, depth: 'list' });
    expect(list.status).toBe(200);
    expect([...list.body.list.fetched].sort()).toEqual(['canoe care', 'canoe fit', 'canoe guide']);
    expect((await s.tool('serp_landscape', { keyword: 'canoe guide', depth: 'list' })).status).toBe(200);

    // The idea researched for the page is shown apart in its metrics, outside the coverage of its keywords.
    const metrics = await s.tool('serp_landscape', { page_id: page.id });
    const shown = Object.fromEntries(
      metrics.body.keywords.map((k: { keyword: string; is_idea: boolean }) => [k.keyword, k.is_idea]),
    );
    expect(shown).toEqual({ 'canoe guide': false, 'canoe fit': false, 'canoe care': false, 'canoe paint': true });
    expect(metrics.body.coverage).toMatchObject({ keywords: 3, with_serp: 3 });
  });
});

describe('research jobs', () => {
  it('waits for a web job and answers facts and opinions citing src-<n> sources; recall finds it, not another site', async () => {
    const s = await site();
    const reply = await s.tool('research', { mode: 'web', seed: 'How long do running shoes last?' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'succeeded',
      data_source: 'sandbox',
      job_id: expect.stringMatching(/^job_/),
      cached: false,
    });
    const ids = reply.body.sources.map((source: { id: string }) => source.id);
    expect(ids[0]).toBe('src-1');
    for (const source of reply.body.sources)
      expect(source).toEqual({
        id: expect.stringMatching(/^src-\d+$/),
        title: expect.any(String),
        url: expect.stringMatching(/^https:\/\//),
        accessed_at: expect.any(String),
      });
    for (const finding of [...reply.body.facts, ...reply.body.opinions]) {
      expect(finding.source_ids.length).toBeGreaterThan(0);
      for (const id of finding.source_ids) expect(ids).toContain(id);
    }

    const recalled = await s.tool('recall', { query: 'running shoes last' });
    expect(recalled.body.empty).toBe(false);
    expect(recalled.body.results[0]).toMatchObject({
      research_id: reply.body.research_id,
      mode: 'web',
      query: 'How long do running shoes last?',
    });
    expect((await s.tool('recall', { query: 'sourdough starter' })).body).toMatchObject({ results: [], empty: true });
    expect((await s.tool('recall', { query: 'running shoes', mode: 'reddit' })).body.empty).toBe(true);
    const other = await site();
    expect((await other.tool('recall', { query: 'running shoes last' })).body).toMatchObject({
      results: [],
      empty: true,
    });
  });

  it('answers running with wait_ms 0, and GET /v1/jobs collects the result; another site gets 404', async () => {
    const s = await site();
    const started = await s.tool('research', { mode: 'reddit', seed: 'best budget running shoes', wait_ms: 0 });
    expect(started.body).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      status: expect.stringMatching(/^(queued|running)$/),
      cached: false,
    });
    expect(started.body.facts).toBeUndefined();
    const done = await s.get(`/v1/jobs/${started.body.job_id}?wait_ms=10000`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      job_id: started.body.job_id,
      tool: 'research',
      status: 'succeeded',
      result: { research_id: expect.any(String) },
    });
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
    expect(again.body).toMatchObject({
      status: 'succeeded',
      job_id: null,
      cached: true,
      cost_usd: 0,
      research_id: first.body.research_id,
    });
    expect((await s.get('/v1/usage')).body.calls).toBe(calls);
  });

  it("lets 10 of 100 concurrent web calls in, refuses 90 with the spec's error object, and frees all 10 places after", async () => {
    const s = await site();
    let accepted: Awaited<ReturnType<typeof s.tool>>[] = [];
    // No job starts, and so none ends, until the 100 calls have their answers, however slow the machine.
    t.stack.queues.research.pause();
    try {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_v, i) =>
          s.tool('research', { mode: 'web', seed: `running question number ${i}`, wait_ms: 0 }),
        ),
      );
      accepted = replies.filter((r) => r.status === 200);
      const refused = replies.filter((r) => r.status === 429);
      expect(accepted).toHaveLength(10);
      expect(refused).toHaveLength(90);
      for (const r of refused) {
        expect(r.body).toMatchObject({
          error: 'concurrency_limit_exceeded',
          max_concurrent: 10,
          retry_after_ms: 30000,
        });
        expect(r.headers.get('retry-after')).toBe('30');
      }
      expect((await slotsConsistent()).inflight).toBe(10);
    } finally {
      t.stack.queues.research.resume();
    }
    await t.stack.drain();
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {} });
    for (const r of accepted) expect((await s.get(`/v1/jobs/${r.body.job_id}`)).body.status).toBe('succeeded');
  });

  it("gives a hung worker's place to the next caller once its lease expires, ends its job lease_expired, and its late release leaves the new owner's place alone", async () => {
    const s = await site();
    // Jobs outlive their leases: to the cap, each worker is dead once its lease expires.
    // Leases of 4 s: the 10 calls and the refused one fit inside them however busy the machine (at 1.5 s
    // they did not, with the second core busy); the jobs outlive them by as much again.
    await withTimings({ SANDBOX_RESEARCH_MS: '8000', RESEARCH_LEASE_MS: '4000' }, async () => {
      const hung = await Promise.all(
        Array.from({ length: 10 }, (_v, i) => s.tool('research', { mode: 'web', seed: `hung job ${i}`, wait_ms: 0 })),
      );
      expect(hung.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect((await s.tool('research', { mode: 'web', seed: 'too early', wait_ms: 0 })).status).toBe(429);

      await pause(4_200); // past every lease, while the hung jobs still run
      // The next job's lease outlasts its wait on the queue: the hung workers hold every invocation the
      // research queue's maximum concurrency allows (only a lease shorter than a worker's time lets them).
      process.env.RESEARCH_LEASE_MS = '60000';
      resetServices();
      const next = await s.tool('research', { mode: 'web', seed: 'the next caller', wait_ms: 0 });
      expect(next.status).toBe(200);
      expect(await slotsConsistent()).toEqual({ inflight: 1, leases: { [next.body.job_id]: expect.any(Number) } });

      // Their leases lapsed: they read failed (lease_expired); the new owner's job is running.
      for (const r of hung)
        expect((await s.get(`/v1/jobs/${r.body.job_id}`)).body).toMatchObject({
          status: 'failed',
          error: { code: 'lease_expired' },
        });
      // Its job holds its place, and runs once a hung worker ends.
      expect(['queued', 'running']).toContain((await s.get(`/v1/jobs/${next.body.job_id}`)).body.status);
      // The hung workers end now: their late ends and releases take nothing from the new owner.
      await pause(4_000);
      expect(await slotsConsistent()).toEqual({ inflight: 1, leases: { [next.body.job_id]: expect.any(Number) } });
    });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {} });
  });

  it('takes only https URLs in url mode, and a question only there', async () => {
    const s = await site();
    const http = await s.tool('research', { mode: 'url', seed: 'http://example.com/page' });
    expect(http.status).toBe(400);
    expect(http.body.issues).toEqual([{ path: 'seed', message: 'url mode takes an https URL' }]);
    expect((await s.tool('research', { mode: 'web', seed: 'shoes', question: 'why?' })).body.issues[0].path).toBe(
      'question',
    );
    for (const url of [
      'https://127.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/',
      'https://localhost:8443/x',
      'https://10.0.0.7/',
      'https://[::ffff:127.0.0.1]/',
    ]) {
      const refused = await s.tool('research', { mode: 'url', seed: url });
      expect([url, refused.status]).toEqual([url, 400]);
      expect(refused.body.issues[0]).toMatchObject({
        path: 'seed',
        message: expect.stringContaining('public addresses only'),
      });
    }
    expect(await t.store.researchSlots.state()).toMatchObject({ inflight: 0 }); // refused before taking a place
  });

  describe('url mode host names, resolved at the call', () => {
    /** What the lookup answers, as DNS or the hosts file would; other names go to the real resolver (none in these tests). */
    const HOSTS: Record<string, string[]> = {
      'intranet.test': ['127.0.0.1'],
      'printer.test': ['192.168.1.20'],
      'metadata.test': ['169.254.169.254'],
      'split.test': ['93.184.216.34', '10.0.0.8'],
      'v6.test': ['::1'],
      'public.test': ['93.184.216.34'],
    };
    let lookups: string[];
    beforeEach(() => {
      lookups = [];
      const real = dns.promises.lookup;
      jest.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string, options: unknown) => {
        lookups.push(host);
        const addresses = HOSTS[host];
        if (!addresses) return real(host, options as dns.LookupAllOptions);
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      }) as typeof dns.promises.lookup);
    });
    afterEach(() => jest.restoreAllMocks());

    it('refuses a name that resolves to any address that is not public with 400, before taking a place', async () => {
      const s = await site();
      const queued = t.stack.queues.research.sent;
      for (const host of ['intranet.test', 'printer.test', 'metadata.test', 'split.test', 'v6.test']) {
        const seed = `https://${host}/page`;
        const refused = await s.tool('research', { mode: 'url', seed, question: 'What is on it?' });
        expect([host, refused.status]).toEqual([host, 400]);
        expect(refused.body).toMatchObject({
          error: 'validation_failed',
          issues: [{ path: 'seed', message: expect.stringContaining(`${host} resolves to`) }],
        });
        expect(refused.body.issues[0].message).toContain('url mode fetches public addresses only');
      }
      expect(lookups).toEqual(['intranet.test', 'printer.test', 'metadata.test', 'split.test', 'v6.test']);
      expect(await t.store.researchSlots.state()).toMatchObject({ inflight: 0 });
      expect(t.stack.queues.research.sent).toBe(queued);
    });

    it('refuses a URL with credentials at the call', async () => {
      const s = await site();
      const refused = await s.tool('research', { mode: 'url', seed: 'https://user:secret@public.test/page' });
      expect(refused.status).toBe(400);
      expect(refused.body.issues).toEqual([
        { path: 'seed', message: 'url mode takes a URL without credentials (user:password@)' },
      ]);
    });

    it('lets a name that resolves to public addresses through to the job, and leaves literals and private names to the checks before any lookup', async () => {
      const s = await site();
      const reply = await s.tool('research', { mode: 'url', seed: 'https://public.test/shoe-care' });
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe('succeeded');
      expect((await s.tool('research', { mode: 'url', seed: 'https://localhost./x' })).status).toBe(400);
      expect((await s.tool('research', { mode: 'url', seed: 'https://93.184.216.34/x' })).status).toBe(200);
      expect(lookups).toEqual(['public.test']);
    });
  });
});

describe('recall', () => {
  it('answers empty when stored research shares one word with the query, and finds the research that answers it, with its matched terms', async () => {
    const s = await site();
    const stored: string[] = [];
    for (const seed of ['best trail running shoes for beginners', 'how to clean muddy trail shoes']) {
      const reply = await s.tool('research', { mode: 'web', seed });
      expect(reply.body.status).toBe('succeeded');
      stored.push(reply.body.research_id);
    }
    const recalled = async (query: string) => {
      const recording = t.stack.dynamo.record();
      const reply = await s.tool('recall', { query });
      recording.stop();
      expect(reply.status).toBe(200);
      return { body: reply.body, operations: recording.operations() };
    };
    const ids = (body: { results: { research_id: string; matched_terms: string[] }[] }) =>
      body.results.map((r) => [r.research_id, r.matched_terms]);

    // Only "shoes" in common: no stored research answers it, so the caller is to research.
    const unrelated = await recalled('zeppelin mooring masts shoes');
    expect(unrelated.body).toMatchObject({ results: [], empty: true });
    // One Query per term, and no read of research that does not answer.
    expect(unrelated.operations).toEqual(Array(4).fill('Query'));

    const close = await recalled('trail running shoes');
    expect(close.body.empty).toBe(false);
    expect(ids(close.body)).toEqual([[stored[0], ['trail', 'running', 'shoes']]]);
    expect(close.operations).toEqual(['Query', 'Query', 'Query', 'BatchGetItem']);

    // A reworded query of five terms may miss one; the cleaning research, two of five, does not answer it.
    expect(ids((await recalled('best shoes for trail running novices')).body)).toEqual([
      [stored[0], ['best', 'shoes', 'trail', 'running']],
    ]);
    expect(ids((await recalled('Trail shoes')).body)).toEqual([
      [stored[1], ['trail', 'shoes']],
      [stored[0], ['trail', 'shoes']],
    ]);
  });
});

describe('serp_landscape analyze', () => {
  const SEEDS = [
    'running shoes',
    'trail running shoes',
    'best running shoes',
    'running shoes for women',
    'cheap running shoes',
    'running socks',
    'marathon shoes',
  ];

  async function topic(s: Awaited<ReturnType<typeof site>>) {
    const created = (await s.tool('db_insert', { table: 'cm_topics', row: { name: 'Running' } })).body.row;
    expect((await s.tool('get_keywords', { topic_id: created.id, seeds: SEEDS })).status).toBe(200);
    return created;
  }

  it('answers partial, then complete on the same call later, with facts per keyword; a third call makes no provider call', async () => {
    const s = await site();
    const { id } = await topic(s);
    const call = { topic_id: id, depth: 'analyze', wait_ms: 0 };

    const first = await s.tool('serp_landscape', call);
    expect(first.status).toBe(200);
    // The topic's top 5 by score are listed and researched.
    expect(first.body.list.fetched).toHaveLength(5);
    const top5 = [...first.body.list.fetched].sort();
    expect(first.body.research).toMatchObject({ status: 'partial', facts_by_keyword: {}, failed: [] });
    expect([...first.body.research.in_process].sort()).toEqual(top5);
    const queued = t.stack.queues.research.sent;
    // Called again while in process: nothing queued twice.
    expect((await s.tool('serp_landscape', call)).body.research.status).toBe('partial');
    expect(t.stack.queues.research.sent).toBe(queued);

    await t.stack.drain();
    const second = await s.tool('serp_landscape', call);
    expect(second.body.research).toMatchObject({ status: 'complete', in_process: [], failed: [] });
    expect(Object.keys(second.body.research.facts_by_keyword).sort()).toEqual(top5);
    for (const [keyword, research] of Object.entries<any>(second.body.research.facts_by_keyword)) {
      expect(research).toMatchObject({ research_id: expect.stringMatching(/^res_/), data_source: 'sandbox' });
      expect(research.facts.length).toBeGreaterThan(0);
      expect(research.sources[0].title).toContain(keyword);
      const ids = research.sources.map((src: { id: string }) => src.id);
      for (const finding of [...research.facts, ...research.opinions])
        for (const id of finding.source_ids) expect(ids).toContain(id);
    }
    expect(second.body.list).toMatchObject({ fetched: [], skipped: expect.arrayContaining(top5) });

    const usage = (await s.get('/v1/usage')).body;
    const third = await s.tool('serp_landscape', call);
    expect(third.body).toMatchObject({ cost_usd: 0, cached: true, research: { status: 'complete' } });
    expect(third.body.research.facts_by_keyword).toEqual(second.body.research.facts_by_keyword);
    expect((await s.get('/v1/usage')).body.calls).toBe(usage.calls);
    expect(t.stack.queues.research.sent).toBe(queued);
  });

  it('caps analyze at 5 keywords in every paid part, listed and researched, for limit 7 or 7 keyword_ids, and its estimate says so (audit)', async () => {
    const s = await site();
    const { id } = await topic(s);
    // The estimate prices what the call will do: 5 SERP pulls and 5 research jobs, not 7.
    const estimate = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', limit: 7, estimate: true });
    const planned = (endpoint: string) =>
      estimate.body.calls
        .filter((call: { endpoint: string }) => call.endpoint === endpoint)
        .reduce((n: number, call: { count: number }) => n + call.count, 0);
    expect(planned('serp_organic')).toBe(5);
    expect(planned('research_web')).toBe(5);
    const byLimit = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', limit: 7, wait_ms: 0 });
    expect(byLimit.status).toBe(200);
    // The top 5 by score are listed (and paid for) and researched; the other 2 are only named.
    expect(byLimit.body.list.fetched).toHaveLength(5);
    const { researched, over_cap, in_process } = byLimit.body.research;
    expect([...byLimit.body.list.fetched].sort()).toEqual([...researched].sort());
    expect(researched).toHaveLength(5);
    expect([...researched, ...over_cap].sort()).toEqual([...SEEDS].sort());
    expect([...in_process].sort()).toEqual([...researched].sort());
    const top5 = (await s.tool('serp_landscape', { topic_id: id, depth: 'list', limit: 5 })).body.list.skipped;
    expect([...researched].sort()).toEqual([...top5].sort());

    // keyword_ids: the first 5 given, in the order given.
    const rows = (await s.tool('db_select', { table: 'cm_keywords', limit: 100 })).body.rows as {
      id: number;
      keyword: string;
    }[];
    const ids = SEEDS.map((seed) => rows.find((row) => row.keyword === seed)!.id).reverse();
    const byIds = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', keyword_ids: ids, wait_ms: 0 });
    expect(byIds.status).toBe(200);
    expect(byIds.body.research.researched).toEqual([...SEEDS].reverse().slice(0, 5));
    expect(byIds.body.research.over_cap).toEqual([...SEEDS].reverse().slice(5));
    expect([...byIds.body.list.fetched, ...byIds.body.list.skipped].sort()).toEqual(
      [...SEEDS].reverse().slice(0, 5).sort(),
    );
    await t.stack.drain();
  });

  it("takes 5 of a page's 7 keywords on page-scope analyze: lists and researches those 5, names the other 2", async () => {
    const s = await site();
    await topic(s);
    const [primary, ...secondary] = SEEDS;
    const page = (
      await s.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'All shoes', primary_keyword: primary, secondary_keywords: secondary },
      })
    ).body.row;
    const reply = await s.tool('serp_landscape', { page_id: page.id, depth: 'analyze', wait_ms: 0 });
    expect(reply.status).toBe(200);
    const listed = [...reply.body.list.fetched, ...reply.body.list.skipped];
    expect(listed.sort()).toEqual([...reply.body.research.researched].sort());
    expect(reply.body.research.researched).toHaveLength(5);
    expect(reply.body.research.over_cap).toHaveLength(2);
    await t.stack.drain();
  });

  it('researches a keyword once however many analyze calls arrive together, and waits within wait_ms', async () => {
    const s = await site();
    const queued = t.stack.queues.research.sent;
    const replies = await Promise.all(
      Array.from({ length: 4 }, () =>
        s.tool('serp_landscape', { keyword: 'carbon running shoes', depth: 'analyze', wait_ms: 0 }),
      ),
    );
    expect(replies.map((r) => r.body.research.status)).toEqual(Array(4).fill('partial'));
    expect(t.stack.queues.research.sent).toBe(queued + 1);
    // Waiting long enough collects it in the same call.
    const waited = await s.tool('serp_landscape', {
      keyword: 'carbon running shoes',
      depth: 'analyze',
      wait_ms: 10_000,
    });
    expect(waited.body.research).toMatchObject({ status: 'complete', in_process: [] });
    expect(Object.keys(waited.body.research.facts_by_keyword)).toEqual(['carbon running shoes']);
  });

  it('keeps an analyze job waiting for a place at no cost, however long: no message, no DynamoDB request; the sweep gives it the place that frees', async () => {
    const s = await site();
    // Every place held, as jobs that run long hold them.
    const holders = Array.from({ length: 10 }, (_v, i) => `long-job-${i}`);
    for (const holder of holders)
      expect((await t.store.researchSlots.take(holder, Date.now() + 3_600_000)).taken).toBe(true);
    const research = t.stack.queues.research;
    try {
      const reply = await s.tool('serp_landscape', { keyword: 'patient shoes', depth: 'analyze', wait_ms: 0 });
      expect(reply.body.research).toMatchObject({ status: 'partial', in_process: ['patient shoes'] });
      // The queues drain: nothing waits on them, delayed or not (the old worker put the job back every
      // 5 s, each time a write to the cap's item and one more link of a chain that Lambda cut at 16,
      // about 80 s); the schedules are off in the test stack, so nothing else is due, and the job reads
      // and writes nothing while it waits.
      await t.stack.drain();
      const sent = research.sent;
      const recording = t.stack.dynamo.record();
      await pause(500);
      recording.stop();
      expect(recording.operations()).toEqual([]);
      expect(research.sent).toBe(sent);
    } finally {
      for (const holder of holders) await t.store.researchSlots.free(holder);
    }
    expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
    await t.stack.drain();
    const done = await s.tool('serp_landscape', { keyword: 'patient shoes', depth: 'analyze', wait_ms: 0 });
    expect(done.body.research).toMatchObject({ status: 'complete', in_process: [] });
    expect(research.recursiveInvocationsDropped).toBe(0);
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {} });
  });

  it('waits for a place when the cap is full instead of failing, and completes once one frees', async () => {
    const s = await site();
    await withTimings({ SANDBOX_RESEARCH_MS: '1500' }, async () => {
      const busy = await Promise.all(
        Array.from({ length: 10 }, (_v, i) => s.tool('research', { mode: 'web', seed: `busy ${i}`, wait_ms: 0 })),
      );
      expect(busy.map((r) => r.status)).toEqual(Array(10).fill(200));
      const reply = await s.tool('serp_landscape', { keyword: 'waiting shoes', depth: 'analyze', wait_ms: 0 });
      expect(reply.status).toBe(200);
      expect(reply.body.research).toMatchObject({ status: 'partial', in_process: ['waiting shoes'] });
      expect((await slotsConsistent()).inflight).toBe(10); // it queued without taking an 11th place
    });
    const done = await s.tool('serp_landscape', { keyword: 'waiting shoes', depth: 'analyze', wait_ms: 0 });
    expect(done.body.research).toMatchObject({ status: 'complete' });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {} });
  });
});
