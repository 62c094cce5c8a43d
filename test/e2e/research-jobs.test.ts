import * as dns from 'node:dns';
import { resetServices } from '@cm/runtime';
import { fakeClock } from '../helpers/clock';
import { holdResearch, useResearchStack } from '../helpers/research';
import { given } from '../helpers/client';

/* Research jobs over HTTP on the sandbox: waiting and queued jobs, the cap of 10 and its leases, url mode. */

const { t, site, withTimings, slotsConsistent, whilePaused, whileQueued } = useResearchStack();

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

  it('researches a seed of 2000 characters with a word of 1200 bytes: stored whole, answered from storage, recalled by that word', async () => {
    const s = await site();
    // Past DynamoDB's 1024 bytes of a sort key, and the word past them in a recall partition.
    const word = '中'.repeat(400);
    const seed = `${word} ${'trail shoes '.repeat(200)}`.slice(0, 2000);
    const first = await s.tool('research', { mode: 'web', seed });
    expect([first.status, first.body.status]).toEqual([200, 'succeeded']);
    const again = await s.tool('research', { mode: 'web', seed: seed.toUpperCase() });
    expect(again.body).toMatchObject({ cached: true, research_id: first.body.research_id });
    const recalled = await s.tool('recall', { query: word });
    expect(recalled.body.results.map((r: { research_id: string }) => r.research_id)).toEqual([first.body.research_id]);
  });

  it("lets 10 of 20 concurrent web calls of two sites in, 5 each, refuses 10 with the spec's error object, and frees all 10 places after", async () => {
    const sites = [await site(), await site()];
    let accepted: { jobId: string; by: (typeof sites)[0] }[] = [];
    // No job starts, and so none ends, until the 20 calls have their answers, however slow the machine.
    // (test/reliability/caps.test.ts has the cap under 100 concurrent callers.)
    await whileQueued(async () => {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_v, i) =>
          given(sites[i % 2], 'the sites[i % 2]').tool('research', {
            mode: 'web',
            seed: `running question number ${i}`,
            wait_ms: 0,
          }),
        ),
      );
      accepted = replies.flatMap((r, i) =>
        r.status === 200 ? [{ jobId: String(r.body.job_id), by: given(sites[i % 2], 'the sites[i % 2]') }] : [],
      );
      const refused = replies.filter((r) => r.status === 429);
      expect(accepted).toHaveLength(10);
      expect(refused).toHaveLength(10);
      for (const r of refused) {
        expect(r.body).toMatchObject({
          error: 'concurrency_limit_exceeded',
          max_concurrent: 10,
          retry_after_ms: 30000,
        });
        expect(r.headers.get('retry-after')).toBe('30');
      }
      const state = await slotsConsistent();
      expect(state.inflight).toBe(10);
      expect(Object.values(state.groups).map((owners) => owners.length)).toEqual([5, 5]);
    });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
    for (const { jobId, by } of accepted) expect((await by.get(`/v1/jobs/${jobId}`)).body.status).toBe('succeeded');
  });

  it('serves another site within one job while one site floods the cap: the flooder gets its share and the error object, never all 10 places', async () => {
    const flooder = await site();
    const other = await site();
    // The flooder's jobs last longer than the test: none ends and gives back a place meanwhile.
    await whileQueued(async () => {
      const flood = await Promise.all(
        Array.from({ length: 10 }, (_v, i) =>
          flooder.tool('research', { mode: 'web', seed: `flood question ${i}`, wait_ms: 0 }),
        ),
      );
      expect(flood.filter((r) => r.status === 200)).toHaveLength(5);
      for (const r of flood.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(429);
        expect(r.body).toMatchObject({
          error: 'concurrency_limit_exceeded',
          max_concurrent: 10,
          retry_after_ms: 30000,
        });
        expect(r.body.message).toContain('share');
      }
      // The other site is served at once, its job queued with a place, while the flooder still holds its share.
      const served = await other.tool('research', { mode: 'web', seed: 'a question of the other site', wait_ms: 0 });
      expect(served.status).toBe(200);
      expect(served.body.status).toBe('queued');
      const again = await flooder.tool('research', { mode: 'web', seed: 'one more flood question', wait_ms: 0 });
      expect(again.status).toBe(429);
      const state = await slotsConsistent();
      expect(state.inflight).toBe(6);
    });
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it("gives a hung worker's place to the next caller once its lease expires, ends its job lease_expired, and its late free leaves the new owner's place alone", async () => {
    const sites = [await site(), await site()];
    const s = given(sites[0], 'the sites[0]');
    // Jobs outlive their leases: to the cap, each worker is dead once its lease expires. The workers hang
    // in their provider call until the test lets them go, and the clock (Date) moves only when the test
    // moves it: no lease lapses before the test says, however slow the machine.
    const hung = holdResearch(t);
    let nextJobId = '';
    fakeClock(Date.now());
    try {
      await withTimings({ SANDBOX_RESEARCH_MS: '0', RESEARCH_LEASE_MS: '4000' }, async () => {
        try {
          const started = await Promise.all(
            Array.from({ length: 10 }, (_v, i) =>
              given(sites[i % 2], 'the sites[i % 2]').tool('research', {
                mode: 'web',
                seed: `hung job ${i}`,
                wait_ms: 0,
              }),
            ),
          );
          expect(started.map((r) => r.status)).toEqual(Array(10).fill(200));
          expect((await s.tool('research', { mode: 'web', seed: 'too early', wait_ms: 0 })).status).toBe(429);

          jest.setSystemTime(Date.now() + 4_001); // past every lease, while the hung jobs still run
          // The next job's lease outlasts its wait on the queue: the hung workers take every invocation the
          // research queue's maximum concurrency allows (only a lease shorter than a worker's time lets them).
          process.env.RESEARCH_LEASE_MS = '60000';
          resetServices();
          // The next job stays queued until the hung workers have ended: their ends are what is checked.
          await whilePaused(async () => {
            const next = await s.tool('research', { mode: 'web', seed: 'the next caller', wait_ms: 0 });
            expect(next.status).toBe(200);
            nextJobId = String(next.body.job_id);
            const held = {
              inflight: 1,
              leases: { [nextJobId]: expect.any(Number) },
              groups: { [s.siteId]: [nextJobId] },
            };
            expect(await slotsConsistent()).toEqual(held);

            // Their leases lapsed: they read failed (lease_expired); the new owner's job keeps its place.
            for (const [i, r] of started.entries())
              expect(
                (await given(sites[i % 2], 'the sites[i % 2]').get(`/v1/jobs/${r.body.job_id}`)).body,
              ).toMatchObject({ status: 'failed', error: { code: 'lease_expired' } });
            expect((await s.get(`/v1/jobs/${nextJobId}`)).body.status).toBe('queued');
            // The hung workers hold every invocation the queue allows; they end now, and their late ends
            // and frees take nothing from the new owner.
            expect(t.stack.queues.research.inFlight).toBe(10);
            await hung.release();
            expect(await slotsConsistent()).toEqual(held);
          });
        } finally {
          await hung.release();
        }
      });
    } finally {
      jest.useRealTimers();
    }
    // Its job runs once the hung workers have ended, and frees its place.
    expect((await s.get(`/v1/jobs/${nextJobId}`)).body.status).toBe('succeeded');
    expect(await slotsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
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
