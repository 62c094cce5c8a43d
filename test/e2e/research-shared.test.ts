import { SHARED_RESEARCH_MS, normalizedResearchQuery } from '@cm/core';
import { fakeClock } from '../helpers/clock';
import { siteClient } from '../helpers/local';
import { useResearchStack } from '../helpers/research';
import { given, variant, type ToolArgs } from '../helpers/client';

/*
 * Research shared across sites: an identical web, reddit or url request of another site within a day
 * is answered with the first site's findings, with no provider call, and each site's recall keeps only
 * its own research.
 */

const { t, whileQueued } = useResearchStack({ SANDBOX_LIST_PRICES: '1' });

/** The whole ledger, whatever the month: a test that moves the clock a day may cross into the next. */
const LEDGER = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };

async function site(name: string) {
  const s = await siteClient(t, name);
  return {
    ...s,
    research: (body: ToolArgs<'research'>) => s.client.tool('research', { wait_ms: 10_000, ...body }),
    recalled: async (query: string) =>
      (await s.client.tool('recall', { query })).body.results.map((r) => r.research_id),
    ledger: async () => (await s.client.route('GET /v1/usage', { query: LEDGER })).body,
  };
}

/** Research jobs queued on the stack so far: each is one provider research. */
const jobsQueued = () => t.stack.queues.research.sent;

it("answers site B's identical research from site A's: no provider call, $0 cached ledger line, each recall its own", async () => {
  const a = await site('Shared A');
  const b = await site('Shared B');
  const first = await a.research({ mode: 'web', seed: 'How long do running shoes last?' });
  expect(first.body).toMatchObject({ status: 'succeeded', cached: false });
  expect(first.body.cost_usd).toBeGreaterThan(0);
  const found = variant(first.body, 'status', 'succeeded');
  const aLedger = await a.ledger();

  const queued = jobsQueued();
  const estimate = await b.client.tool('research', {
    mode: 'web',
    seed: 'how long do RUNNING  shoes last?',
    estimate: true,
  });
  expect(estimate.body).toMatchObject({ calls: [], total_usd: 0, free: [{ what: 'research' }] });
  expect(estimate.body.free[0]?.reason).toContain('shared cache');

  const second = await b.research({ mode: 'web', seed: 'how long do RUNNING  shoes last?', page_id: null });
  expect(second.body).toMatchObject({
    status: 'succeeded',
    job_id: null,
    cached: true,
    cost_usd: 0,
    data_source: 'sandbox',
    facts: found.facts,
    opinions: found.opinions,
    sources: found.sources,
  });
  const shared = variant(second.body, 'status', 'succeeded');
  expect(shared.research_id).not.toBe(found.research_id);
  // No job, so no provider call and no place under the cap.
  expect(jobsQueued()).toBe(queued);
  expect((await t.store.researchSlots.state()).inflight).toBe(0);
  expect((await b.ledger()).by_tool).toEqual([
    { tool: 'research', provider: 'sandbox', calls: 1, cached_calls: 1, cost_usd: 0 },
  ]);
  expect((await b.client.route('GET /v1/budget')).body.daily).toMatchObject({ spent_usd: 0, reserved_usd: 0 });

  // Each recall has its own research, and only its own; A's ledger is as it was.
  expect(await b.recalled('running shoes last')).toEqual([shared.research_id]);
  expect(await a.recalled('running shoes last')).toEqual([found.research_id]);
  expect(await a.ledger()).toEqual(aLedger);

  // B's repeat is its own stored research now: no second ledger line.
  const repeat = await b.research({ mode: 'web', seed: 'How long do running shoes last?' });
  expect(repeat.body).toMatchObject({ cached: true, research_id: shared.research_id });
  expect((await b.ledger()).calls).toBe(1);
});

it('shares url research for the same URL only: a path that differs in case is another page, researched and paid', async () => {
  const a = await site('Url A');
  const b = await site('Url B');
  const url = 'https://example.com/Guides/Trail-Shoes';
  const first = await a.research({ mode: 'url', seed: url, question: 'How often to replace them?' });
  expect(first.body).toMatchObject({ status: 'succeeded', cached: false });
  const queued = jobsQueued();
  const same = await b.research({
    mode: 'url',
    seed: 'https://EXAMPLE.com/Guides/Trail-Shoes#fit',
    question: 'how often to replace them?',
  });
  expect(same.body).toMatchObject({
    cached: true,
    cost_usd: 0,
    job_id: null,
    sources: variant(first.body, 'status', 'succeeded').sources,
  });
  expect(jobsQueued()).toBe(queued);

  const other = await b.research({
    mode: 'url',
    seed: 'https://example.com/guides/trail-shoes',
    question: 'How often to replace them?',
  });
  expect(other.body).toMatchObject({ status: 'succeeded', cached: false });
  expect(other.body.cost_usd).toBeGreaterThan(0);
  expect(jobsQueued()).toBe(queued + 1);
});

it('researches and pays again once the shared findings are older than the window', async () => {
  const a = await site('Window A');
  const b = await site('Window B');
  const c = await site('Window C');
  const seed = 'best reddit advice on trail shoe lacing';
  const first = await a.research({ mode: 'reddit', seed });
  expect(first.body.cost_usd).toBeGreaterThan(0);
  const jobId = given(variant(first.body, 'status', 'succeeded').job_id, 'the job id');
  const fetchedAt = Date.parse(
    (await a.client.route('GET /v1/jobs/{job_id}', { params: { job_id: jobId } })).body.updated_at,
  );

  fakeClock(fetchedAt + SHARED_RESEARCH_MS - 60_000);
  try {
    expect((await b.research({ mode: 'reddit', seed })).body).toMatchObject({ cached: true, cost_usd: 0 });
    jest.setSystemTime(fetchedAt + SHARED_RESEARCH_MS + 60_000);
    const queued = jobsQueued();
    const late = await c.research({ mode: 'reddit', seed });
    expect(late.body).toMatchObject({ status: 'succeeded', cached: false, job_id: expect.stringMatching(/^job_/) });
    expect(late.body.cost_usd).toBe(first.body.cost_usd);
    expect(jobsQueued()).toBe(queued + 1);
  } finally {
    jest.useRealTimers();
  }
});

it("answers serp_landscape analyze's research of a keyword from another site's identical web research, and its estimate says so", async () => {
  const a = await site('Analyze A');
  const b = await site('Analyze B');
  const keyword = 'waterproof trail shoes';
  const first = await a.research({ mode: 'web', seed: keyword });
  expect(first.body.cost_usd).toBeGreaterThan(0);
  const found = variant(first.body, 'status', 'succeeded');

  const analyze = { keyword, depth: 'analyze', wait_ms: 0 } as const;
  const estimate = await b.client.tool('serp_landscape', { ...analyze, estimate: true });
  expect(estimate.body.calls.map((call) => call.endpoint)).not.toContain('research_web');
  expect(estimate.body.free).toContainEqual(expect.objectContaining({ what: 'research', items: [keyword] }));

  const queued = jobsQueued();
  const reply = await b.client.tool('serp_landscape', analyze);
  expect(reply.body.research).toMatchObject({ status: 'complete', in_process: [], failed: [] });
  const research = given(
    given(reply.body.research, 'the research').facts_by_keyword[keyword],
    "the keyword's research",
  );
  expect(research).toMatchObject({ facts: found.facts, sources: found.sources });
  expect(research.research_id).not.toBe(found.research_id);
  expect(jobsQueued()).toBe(queued);
  const line = (await b.ledger()).by_tool.find((l) => l.tool === 'serp_landscape' && l.cached_calls);
  expect(line).toMatchObject({ cached_calls: 1 });
  expect(await b.recalled(keyword)).toEqual([research.research_id]);
  expect(await a.recalled(keyword)).toEqual([found.research_id]);
});

it("answers with today's shared findings, else yesterday's within the window, and never another provider's", async () => {
  const b = await site('Providers B');
  const seed = 'lacing for wide feet';
  const query = normalizedResearchQuery('web', seed, null);
  const now = Date.parse('2026-11-29T06:00:00.000Z');
  const findings = (text: string) => ({
    facts: [{ text, source_ids: ['src-1'] }],
    opinions: [],
    sources: [{ id: 'src-1', title: text, url: 'https://example.com/lacing', accessed_at: '2026-11-28T20:00:00.000Z' }],
  });
  const put = (at: string, text: string, dataSource: string) =>
    t.store.shared.put(
      { kind: 'research', key: query, day: at.slice(0, 10) },
      { value: findings(text), fetched_at: at, data_source: dataSource },
    );
  // Yesterday's, 10 hours old, from the sandbox; today's from a provider this stack does not use.
  await put('2026-11-28T20:00:00.000Z', 'from the sandbox yesterday', 'sandbox');
  await put('2026-11-29T05:00:00.000Z', 'from another provider today', 'tavily+bedrock');

  fakeClock(now);
  try {
    const queued = jobsQueued();
    const reply = await b.research({ mode: 'web', seed });
    expect(reply.body).toMatchObject({
      cached: true,
      data_source: 'sandbox',
      facts: findings('from the sandbox yesterday').facts,
    });
    expect(jobsQueued()).toBe(queued);
  } finally {
    jest.useRealTimers();
  }
});

it('lets two sites asking at once, before either job ended, each pay the job it queued and no more', async () => {
  const a = await site('At once A');
  const b = await site('At once B');
  const seed = 'do trail shoes need a break-in period';
  const queued = jobsQueued();
  const jobs: string[] = [];
  await whileQueued(async () => {
    for (const s of [a, b])
      jobs.push(variant((await s.research({ mode: 'web', seed, wait_ms: 0 })).body, 'status', 'queued').job_id);
    expect(jobsQueued()).toBe(queued + 2);
  });
  const results = await Promise.all(
    [a, b].map(
      async (s, i) =>
        (await s.client.route('GET /v1/jobs/{job_id}', { params: { job_id: given(jobs[i], 'the job') } })).body.result,
    ),
  );
  for (const [i, s] of [a, b].entries()) {
    const result = given(results[i], 'the job result');
    const cost = result.cost_usd;
    expect(cost).toBeGreaterThan(0);
    expect(await s.ledger()).toMatchObject({ calls: 1, simulated_cost_usd: cost });
    expect((await s.client.route('GET /v1/budget')).body.daily).toMatchObject({ spent_usd: cost, reserved_usd: 0 });
    expect(await s.recalled(seed)).toEqual([result.research_id]);
  }
});

it('ends a job whose findings cannot be shared as succeeded and paid once: the next site researches it itself', async () => {
  const a = await site('Unshared A');
  const b = await site('Unshared B');
  // The worker's store, as every store, writes through the class's put.
  const sharedPut = jest
    .spyOn(Object.getPrototypeOf(t.store.shared) as { put: () => Promise<void> }, 'put')
    .mockRejectedValueOnce(new Error('the table did not answer'));
  const queued = jobsQueued();
  const first = await a.research({ mode: 'web', seed: 'Do trail shoes need a rock plate?' });
  expect(first.body).toMatchObject({ status: 'succeeded', cached: false });
  expect(jobsQueued()).toBe(queued + 1);
  expect((await a.ledger()).by_tool).toEqual([
    expect.objectContaining({ tool: 'research', provider: 'sandbox', cost_usd: first.body.cost_usd }),
  ]);
  expect(sharedPut).toHaveBeenCalled();
  sharedPut.mockRestore();
  const second = await b.research({ mode: 'web', seed: 'Do trail shoes need a rock plate?' });
  expect(second.body).toMatchObject({ status: 'succeeded', cached: false });
  expect(jobsQueued()).toBe(queued + 2);
});
