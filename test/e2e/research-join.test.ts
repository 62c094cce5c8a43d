import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';
import { webResearchPrice } from '@cm/providers';
import { startTestStack, withStackEnv, type TestStack } from '../helpers/local';
import { whileQueued } from '../helpers/research';

/* One job per query: an identical web, reddit or url call made while its job is in process joins that job. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '1500', SANDBOX_LIST_PRICES: '1' } });
}, 60_000);
afterAll(() => t.stop());

const PRICE = webResearchPrice('web', DEFAULT_BEDROCK_MODEL);

async function site(name: string) {
  const created = await t.newSite(name);
  const research = (body: unknown) => t.call('POST', '/v1/tools/research', body, { key: created.key });
  const get = async (path: string) => (await t.call('GET', path, undefined, { key: created.key })).body;
  return {
    research,
    get,
    ledgerCalls: async () => (await get('/v1/usage')).calls as number,
    daily: async () => (await get('/v1/budget')).daily as { reserved_usd: number; spent_usd: number },
  };
}

const placesHeld = async () => (await t.store.researchSlots.state()).inflight;

it('joins a second identical call to the job in process: same job_id, one place, one hold, one ledger line', async () => {
  // What one job costs the ledger, from a query of its own.
  const reference = await site('Reference');
  await reference.research({ mode: 'web', seed: 'how to lace trail shoes', wait_ms: 10_000 });
  const oneJobCalls = await reference.ledgerCalls();
  expect(oneJobCalls).toBeGreaterThan(0);

  const s = await site('Join in a row');
  const sent = t.stack.queues.research.sent;
  let jobId = '';
  await whileQueued(t, async () => {
    const first = await s.research({ mode: 'web', seed: 'How long do running shoes last?', wait_ms: 0 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'queued', cached: false });
    expect(first.body.joined).toBeUndefined();
    jobId = first.body.job_id;
    // Normalized: the same query however it is spaced or cased.
    const second = await s.research({ mode: 'web', seed: '  how long do RUNNING shoes   last? ', wait_ms: 0 });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ job_id: jobId, status: 'queued', joined: true, cost_usd: 0, cached: false });
    expect(await placesHeld()).toBe(1);
    expect(t.stack.queues.research.sent).toBe(sent + 1);
    expect(await s.daily()).toMatchObject({ reserved_usd: PRICE });
  });
  expect(await s.ledgerCalls()).toBe(oneJobCalls);
  const daily = await s.daily();
  expect(daily.reserved_usd).toBe(0);
  expect(daily.spent_usd).toBe((await reference.daily()).spent_usd);
  expect((await s.get(`/v1/jobs/${jobId}`)).status).toBe('succeeded');
});

it('answers a joined call that waits with the job’s findings, at no cost', async () => {
  const s = await site('Join and wait');
  // A job of 5 s: the second call joins it while it runs, however slow the machine, then waits for its end.
  await withStackEnv(t, { SANDBOX_RESEARCH_MS: '5000' }, async () => {
    const first = await s.research({ mode: 'reddit', seed: 'best budget running shoes', wait_ms: 0 });
    const joined = await s.research({ mode: 'reddit', seed: 'best budget running shoes', wait_ms: 10_000 });
    expect(joined.body).toMatchObject({
      job_id: first.body.job_id,
      status: 'succeeded',
      joined: true,
      cost_usd: 0,
      research_id: expect.stringMatching(/^res_/),
    });
    const done = await s.get(`/v1/jobs/${first.body.job_id}`);
    expect(done.result.research_id).toBe(joined.body.research_id);
    expect(done.result.cost_usd).toBeGreaterThan(0);
  });
});

it('queues one job for identical calls sent at once, and the others join it', async () => {
  const s = await site('Join at once');
  const sent = t.stack.queues.research.sent;
  await whileQueued(t, async () => {
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => s.research({ mode: 'url', seed: 'https://93.184.216.34/shoe-care', wait_ms: 0 })),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const jobIds = new Set(replies.map((r) => r.body.job_id));
    expect(jobIds.size).toBe(1);
    expect(replies.filter((r) => r.body.joined === true)).toHaveLength(3);
    expect(await placesHeld()).toBe(1);
    expect(t.stack.queues.research.sent).toBe(sent + 1);
    expect(await s.daily()).toMatchObject({ reserved_usd: webResearchPrice('url', DEFAULT_BEDROCK_MODEL) });
  });
});

it('gives a different seed, mode or question a job of its own', async () => {
  const s = await site('Different queries');
  await whileQueued(t, async () => {
    const replies = [
      await s.research({ mode: 'web', seed: 'trail shoes for mud', wait_ms: 0 }),
      await s.research({ mode: 'web', seed: 'trail shoes for snow', wait_ms: 0 }),
      await s.research({ mode: 'reddit', seed: 'trail shoes for mud', wait_ms: 0 }),
      await s.research({ mode: 'url', seed: 'https://93.184.216.34/mud', wait_ms: 0 }),
      await s.research({ mode: 'url', seed: 'https://93.184.216.34/mud', question: 'Which sole?', wait_ms: 0 }),
    ];
    expect(new Set(replies.map((r) => r.body.job_id)).size).toBe(5);
    expect(replies.every((r) => r.body.joined === undefined)).toBe(true);
    expect(await placesHeld()).toBe(5);
  });
});

it('joins the job with the last place under a full cap instead of refusing the call', async () => {
  const s = await site('Join at the cap');
  const owners = Array.from({ length: 9 }, (_v, i) => `cap-owner-${i}`);
  for (const owner of owners)
    expect((await t.store.researchSlots.take(owner, Date.now() + 3_600_000)).taken).toBe(true);
  try {
    await whileQueued(t, async () => {
      const first = await s.research({ mode: 'web', seed: 'the tenth place', wait_ms: 0 });
      expect(first.status).toBe(200);
      expect((await s.research({ mode: 'web', seed: 'an eleventh job', wait_ms: 0 })).status).toBe(429);
      const joined = await s.research({ mode: 'web', seed: 'the tenth place', wait_ms: 0 });
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({ job_id: first.body.job_id, joined: true });
    });
  } finally {
    for (const owner of owners) await t.store.researchSlots.free(owner);
  }
});

it('lets a finished job capture no later call: an identical call is answered from storage, as before', async () => {
  const s = await site('After the job');
  const first = await s.research({ mode: 'web', seed: 'when to retire running shoes', wait_ms: 10_000 });
  expect(first.body.status).toBe('succeeded');
  const calls = await s.ledgerCalls();
  const again = await s.research({ mode: 'web', seed: 'when to retire running shoes', wait_ms: 0 });
  expect(again.body).toMatchObject({
    job_id: null,
    status: 'succeeded',
    cached: true,
    cost_usd: 0,
    research_id: first.body.research_id,
  });
  expect(again.body.joined).toBeUndefined();
  expect(await s.ledgerCalls()).toBe(calls);
});
