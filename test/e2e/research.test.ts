import { given } from '../helpers/client';
import { warmKeyCheck } from '../helpers/local';
import { pause, useResearchStack } from '../helpers/research';

/* Research in keywords mode, recall and analyze over HTTP on the sandbox, whose jobs take SANDBOX_RESEARCH_MS
 * (research-jobs.test.ts: the jobs, their cap and leases, and url mode). */

const { t, site, slotsConsistent, whilePaused, whileQueued } = useResearchStack();

/** An analyze call's research part, answered at once (`wait_ms: 0`). */
async function analyzeNow(s: Awaited<ReturnType<typeof site>>, keyword: string) {
  return (await s.tool('serp_landscape', { keyword, depth: 'analyze', wait_ms: 0 })).body.research;
}

/** Fills the cap for long: the site holds its share (5) and 5 jobs of no site the rest. Answers the owners. */
async function fillWithShare(siteId: number, prefix: string) {
  const held = Array.from({ length: 5 }, (_v, i) => `${prefix}-share-${i}`);
  const others = Array.from({ length: 5 }, (_v, i) => `${prefix}-other-${i}`);
  const until = Date.now() + 3_600_000;
  for (const owner of held)
    expect((await t.store.researchSlots.take(owner, until, Date.now(), undefined, String(siteId))).taken).toBe(true);
  for (const owner of others) expect((await t.store.researchSlots.take(owner, until)).taken).toBe(true);
  return { held, others };
}

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

describe('recall', () => {
  it('answers empty when stored research shares one word with the query, and finds the research that answers it, with its matched terms', async () => {
    const s = await site();
    const stored: string[] = [];
    for (const seed of ['best trail running shoes for beginners', 'how to clean muddy trail shoes']) {
      const reply = await s.tool('research', { mode: 'web', seed });
      expect(reply.body.status).toBe('succeeded');
      stored.push(reply.body.research_id);
    }
    // A job's reply comes when it has ended; its worker frees its place after: nothing of it in the counts.
    await t.stack.drain();
    const recalled = async (query: string) => {
      await warmKeyCheck(t, s.key);
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

  async function topic(s: Awaited<ReturnType<typeof site>>, seeds = SEEDS) {
    const created = (await s.client.tool('db_insert', { table: 'cm_topics', row: { name: 'Running' } })).body.row;
    await s.client.tool('get_keywords', { topic_id: created.id, seeds });
    return created;
  }

  it('answers partial, then complete on the same call later, with facts per keyword; a third call makes no provider call', async () => {
    const s = await site();
    const { id } = await topic(s);
    const call = { topic_id: id, depth: 'analyze', wait_ms: 0 } as const;
    const analyze = async () => (await s.client.tool('serp_landscape', call)).body;
    const researchOf = async () => given((await analyze()).research, 'the research');

    let top5: string[] = [];
    let queued = 0;
    await whileQueued(async () => {
      const first = await analyze();
      // The topic's top 5 by score are listed and researched.
      const fetched = given(first.list, 'the list').fetched;
      expect(fetched).toHaveLength(5);
      top5 = [...fetched].sort();
      expect(first.research).toMatchObject({ status: 'partial', facts_by_keyword: {}, failed: [] });
      expect([...given(first.research, 'the research').in_process].sort()).toEqual(top5);
      queued = t.stack.queues.research.sent;
      // Called again while in process: nothing queued twice.
      expect((await researchOf()).status).toBe('partial');
      expect(t.stack.queues.research.sent).toBe(queued);
    });

    const second = await analyze();
    const secondResearch = given(second.research, 'the research');
    expect(secondResearch).toMatchObject({ status: 'complete', in_process: [], failed: [] });
    expect(Object.keys(secondResearch.facts_by_keyword).sort()).toEqual(top5);
    for (const [keyword, research] of Object.entries(secondResearch.facts_by_keyword)) {
      expect(research).toMatchObject({ research_id: expect.stringMatching(/^res_/), data_source: 'sandbox' });
      expect(research.facts.length).toBeGreaterThan(0);
      expect(given(research.sources[0], 'a source').title).toContain(keyword);
      const ids = research.sources.map((src) => src.id);
      for (const finding of [...research.facts, ...research.opinions])
        for (const id of finding.source_ids) expect(ids).toContain(id);
    }
    expect(second.list).toMatchObject({ fetched: [], skipped: expect.arrayContaining(top5) });

    const usage = (await s.client.route('GET /v1/usage')).body;
    const third = await analyze();
    expect(third).toMatchObject({ cost_usd: 0, cached: true, research: { status: 'complete' } });
    expect(third.research?.facts_by_keyword).toEqual(secondResearch.facts_by_keyword);
    expect((await s.client.route('GET /v1/usage')).body.calls).toBe(usage.calls);
    expect(t.stack.queues.research.sent).toBe(queued);
  });

  it('caps analyze at 5 keywords in every paid part, listed and researched, for limit 7 or 7 keyword_ids, and its estimate says so (audit)', async () => {
    const s = await site();
    // Keywords no other test researched: research shared across sites would answer those for free.
    const seeds = SEEDS.map((seed) => `${seed} uk`);
    const { id } = await topic(s, seeds);
    // The estimate prices what the call will do: 5 SERP pulls and 5 research jobs, not 7.
    const estimate = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', limit: 7, estimate: true });
    const planned = (endpoint: string) =>
      estimate.body.calls
        .filter((call: { endpoint: string }) => call.endpoint === endpoint)
        .reduce((n: number, call: { count: number }) => n + call.count, 0);
    // 5 SERPs: pulled, or free from the shared cache of public data (an earlier test's site listed the same keywords today).
    const shared = estimate.body.free.filter((free: { what: string }) => free.what === 'serp');
    expect(planned('serp_organic') + shared.flatMap((free: { items: string[] }) => free.items).length).toBe(5);
    expect(planned('research_web')).toBe(5);
    let researched: string[] = [];
    await whileQueued(async () => {
      const byLimit = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', limit: 7, wait_ms: 0 });
      expect(byLimit.status).toBe(200);
      // The top 5 by score are listed (and paid for) and researched; the other 2 are only named.
      expect(byLimit.body.list.fetched).toHaveLength(5);
      const { over_cap, in_process } = byLimit.body.research;
      researched = byLimit.body.research.researched;
      expect([...byLimit.body.list.fetched].sort()).toEqual([...researched].sort());
      expect(researched).toHaveLength(5);
      expect([...researched, ...over_cap].sort()).toEqual([...seeds].sort());
      expect([...in_process].sort()).toEqual([...researched].sort());
    });
    const top5 = (await s.tool('serp_landscape', { topic_id: id, depth: 'list', limit: 5 })).body.list.skipped;
    expect([...researched].sort()).toEqual([...top5].sort());

    // keyword_ids: the first 5 given, in the order given.
    const rows = (await s.tool('db_select', { table: 'cm_keywords', limit: 100 })).body.rows as {
      id: number;
      keyword: string;
    }[];
    const ids = seeds
      .map(
        (seed) =>
          given(
            rows.find((row) => row.keyword === seed),
            'the find',
          ).id,
      )
      .reverse();
    const byIds = await s.tool('serp_landscape', { topic_id: id, depth: 'analyze', keyword_ids: ids, wait_ms: 0 });
    expect(byIds.status).toBe(200);
    expect(byIds.body.research.researched).toEqual([...seeds].reverse().slice(0, 5));
    expect(byIds.body.research.over_cap).toEqual([...seeds].reverse().slice(5));
    expect([...byIds.body.list.fetched, ...byIds.body.list.skipped].sort()).toEqual(
      [...seeds].reverse().slice(0, 5).sort(),
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
    // Paused: however slow the machine, the job is still in process when the four calls answer.
    await whilePaused(async () => {
      const replies = await Promise.all(
        Array.from({ length: 4 }, () =>
          s.tool('serp_landscape', { keyword: 'carbon running shoes', depth: 'analyze', wait_ms: 0 }),
        ),
      );
      expect(replies.map((r) => r.body.research.status)).toEqual(Array(4).fill('partial'));
      expect(t.stack.queues.research.sent).toBe(queued + 1);
    });
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
    // Every place leased, as jobs that run long lease them.
    const owners = Array.from({ length: 10 }, (_v, i) => `long-job-${i}`);
    for (const owner of owners)
      expect((await t.store.researchSlots.take(owner, Date.now() + 3_600_000)).taken).toBe(true);
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
      for (const owner of owners) await t.store.researchSlots.free(owner);
    }
    expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
    await t.stack.drain();
    const done = await s.tool('serp_landscape', { keyword: 'patient shoes', depth: 'analyze', wait_ms: 0 });
    expect(done.body.research).toMatchObject({ status: 'complete', in_process: [] });
    expect(research.recursiveInvocationsDropped).toBe(0);
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it('admits a waiting analyze job of a site under its share before an older one of a site at its share', async () => {
    const full = await site();
    const under = await site();
    const { held, others } = await fillWithShare(full.siteId, 'older');
    try {
      expect(await analyzeNow(full, 'older shoes')).toMatchObject({ status: 'partial', in_process: ['older shoes'] });
      expect(await analyzeNow(under, 'newer shoes')).toMatchObject({ status: 'partial', in_process: ['newer shoes'] });
      for (const owner of others) await t.store.researchSlots.free(owner);
      // Five places free: `full`'s older job is passed over (its site holds its share), `under`'s admitted.
      expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
      await t.stack.drain();
      expect(await analyzeNow(under, 'newer shoes')).toMatchObject({ status: 'complete' });
      expect(await analyzeNow(full, 'older shoes')).toMatchObject({ status: 'partial', in_process: ['older shoes'] });
    } finally {
      for (const owner of [...held, ...others]) await t.store.researchSlots.free(owner);
    }
    expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
    await t.stack.drain();
    expect(await analyzeNow(full, 'older shoes')).toMatchObject({ status: 'complete' });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it('admits a waiting job of another site behind more than a page of older waiting jobs of a site at its share', async () => {
    const full = await site();
    const under = await site();
    const { held, others } = await fillWithShare(full.siteId, 'paged');
    // 150 waiting jobs of `full` (30 analyze calls of 5 keywords), all older than `under`'s.
    const flood = Array.from({ length: 150 }, (_v, i) => ({
      jobId: `job_flood_${String(i).padStart(3, '0')}`,
      since: '2026-01-01T00:00:00.000Z',
      siteId: full.siteId,
    }));
    try {
      await Promise.all(flood.map((job) => t.store.researchWaits.add(job)));
      expect(await analyzeNow(under, 'paged shoes')).toMatchObject({ status: 'partial', in_process: ['paged shoes'] });
      for (const owner of others) await t.store.researchSlots.free(owner);
      expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
      await t.stack.drain();
      expect(await analyzeNow(under, 'paged shoes')).toMatchObject({ status: 'complete' });
      expect(await t.store.researchWaits.oldest(200)).toHaveLength(flood.length); // `full`'s wait on
    } finally {
      await t.store.researchWaits.remove(flood);
      for (const owner of [...held, ...others]) await t.store.researchSlots.free(owner);
    }
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it('goes on past a waiting job another admitter took a place for, and admits the next', async () => {
    const raced = await site();
    const next = await site();
    const owners = Array.from({ length: 10 }, (_v, i) => `raced-cap-${i}`);
    for (const owner of owners)
      expect((await t.store.researchSlots.take(owner, Date.now() + 3_600_000)).taken).toBe(true);
    // A job the other admitter has taken a place for, its waiting item not yet removed, older than `next`'s.
    const taken = { jobId: 'job_raced', since: '2026-01-01T00:00:00.000Z', siteId: raced.siteId };
    try {
      await t.store.researchWaits.add(taken);
      expect(await analyzeNow(next, 'raced shoes')).toMatchObject({ status: 'partial', in_process: ['raced shoes'] });
    } finally {
      for (const owner of owners) await t.store.researchSlots.free(owner);
    }
    const until = Date.now() + 3_600_000;
    expect(
      (await t.store.researchSlots.take(taken.jobId, until, Date.now(), undefined, String(raced.siteId))).taken,
    ).toBe(true);
    try {
      expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
      expect(await t.store.researchWaits.oldest(10)).toEqual([]); // the raced job's item is done with too
      await t.stack.drain();
      expect(await analyzeNow(next, 'raced shoes')).toMatchObject({ status: 'complete' });
    } finally {
      await t.store.researchSlots.free(taken.jobId);
    }
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it("admits a waiting job written before shares (no site) by its job's site, and drops one whose job is gone", async () => {
    const s = await site();
    const owners = Array.from({ length: 10 }, (_v, i) => `before-shares-${i}`);
    for (const owner of owners)
      expect((await t.store.researchSlots.take(owner, Date.now() + 3_600_000)).taken).toBe(true);
    try {
      const reply = await s.tool('serp_landscape', { keyword: 'older entry shoes', depth: 'analyze', wait_ms: 0 });
      expect(reply.body.research).toMatchObject({ status: 'partial' });
      // The entry as an earlier version wrote it, and one whose job no longer exists.
      const [entry] = await t.store.researchWaits.oldest(10);
      await t.store.researchWaits.remove([given(entry, 'the entry')]);
      await t.store.researchWaits.add({
        jobId: given(entry, 'the entry').jobId,
        since: given(entry, 'the entry').since,
      });
      await t.store.researchWaits.add({ jobId: 'job_gone', since: given(entry, 'the entry').since });
      expect((await t.store.researchWaits.oldest(10)).map((w) => w.siteId)).toEqual([undefined, undefined]);
    } finally {
      for (const owner of owners) await t.store.researchSlots.free(owner);
    }
    expect(await t.stack.sweep()).toMatchObject({ admitted: 1 });
    expect(await t.store.researchWaits.oldest(10)).toEqual([]);
    await t.stack.drain();
    const done = await s.tool('serp_landscape', { keyword: 'older entry shoes', depth: 'analyze', wait_ms: 0 });
    expect(done.body.research).toMatchObject({ status: 'complete' });
  });

  it('waits for a place when the cap is full instead of failing, and completes once one frees', async () => {
    const s = await site();
    const other = await site();
    // No busy job starts, and so none frees its place, until the analyze call has its answer.
    await whileQueued(async () => {
      // Two sites fill the cap, each with its share of it.
      const busy = await Promise.all(
        Array.from({ length: 10 }, (_v, i) =>
          (i % 2 ? other : s).tool('research', { mode: 'web', seed: `busy ${i}`, wait_ms: 0 }),
        ),
      );
      expect(busy.map((r) => r.status)).toEqual(Array(10).fill(200));
      const reply = await s.tool('serp_landscape', { keyword: 'waiting shoes', depth: 'analyze', wait_ms: 0 });
      expect(reply.status).toBe(200);
      expect(reply.body.research).toMatchObject({ status: 'partial', in_process: ['waiting shoes'] });
      expect((await slotsConsistent()).inflight).toBe(10); // it queued without taking an 11th place
    });
    const done = await s.tool('serp_landscape', { keyword: 'waiting shoes', depth: 'analyze', wait_ms: 0 });
    expect(done.body.research).toMatchObject({ status: 'complete' });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });
});
