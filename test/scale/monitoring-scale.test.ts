import type { BacklinkProfile, MonitorMessage } from '@cm/contract';
import { InProcessQueue } from '@cm/local';
import { SandboxBacklinkData } from '@cm/providers';
import { mapLimit } from '@cm/store';
import { startTestStack, type TestStack } from '../helpers/local';

/*
 * The daily monitoring of 10,000 sites with 10 competitors each, on the local stack: the schedule, its
 * plan messages and the sites' runs, counted (messages, DynamoDB requests, provider calls) and timed;
 * then the same schedule again, which pays for nothing. The figures are printed for docs/architecture.md.
 * The provider answers at once (a counted stub): the sandbox's own data would only measure the sandbox.
 */

const SITES = 10_000;
const COMPETITORS = 10;
/** Runs handled at once, as a monitor worker whose concurrency is capped. */
const WAVE = 50;

let t: TestStack;
let siteIds: number[];
beforeAll(async () => {
  t = await startTestStack();
  const now = new Date().toISOString();
  siteIds = await mapLimit(
    Array.from({ length: SITES }, (_v, i) => i),
    32,
    async (i) => {
      const { siteId } = await t.newSite(`Scale ${i}`, { domain: `scale-${i}.example.com` });
      await t.store.rows.insertMany(
        siteId,
        'cm_competitors',
        Array.from({ length: COMPETITORS }, (_w, j) => ({
          domain: `rival-${i}-${j}.com`,
          active: true,
          added_at: now,
        })),
        now,
      );
      return siteId;
    },
  );
}, 600_000);
afterAll(() => t.stop());

const profile = (domain: string): BacklinkProfile => ({
  domain,
  summary: { backlinks: 0, referring_domains: 0, rank: 0, spam_score: 0, broken_links: 0, dofollow_share: 0 },
  trend: [],
  anchors: [],
  top_linking_pages: [],
  referring_domains: [],
});

it(`monitors ${SITES} sites × ${COMPETITORS} competitors through a fanned-out schedule, and a second schedule the same day pays nothing`, async () => {
  const calls = { profile: 0, gap: 0 };
  jest.spyOn(SandboxBacklinkData.prototype, 'profile').mockImplementation((domain, meter) => {
    calls.profile++;
    meter.record({ provider: 'sandbox', endpoint: 'backlinks_profile', cost_usd: 0 });
    return Promise.resolve(profile(domain));
  });
  jest.spyOn(SandboxBacklinkData.prototype, 'linkGap').mockImplementation((_site, _competitors, _limit, meter) => {
    calls.gap++;
    meter.record({ provider: 'sandbox', endpoint: 'backlinks_link_gap', cost_usd: 0 });
    return Promise.resolve([]);
  });
  const plans = t.stack.queues['monitor-plan'];
  const runs = t.stack.queues.monitor;
  // The runs the plans send are held, then handled WAVE at a time.
  const held: string[] = [];
  jest.spyOn(runs, 'send').mockImplementation(async (body) => {
    held.push(body);
  });

  const day = async () => {
    const started = Date.now();
    const requests = t.stack.dynamo.requests();
    const before = { plans: plans.sent, profile: calls.profile, gap: calls.gap };
    const schedule = await t.stack.runSchedule();
    const scheduleRequests = t.stack.dynamo.requests() - requests;
    await t.stack.drain();
    const planned = Date.now();
    const planRequests = t.stack.dynamo.requests() - requests - scheduleRequests;
    const bodies = held.splice(0);
    for (let i = 0; i < bodies.length; i += WAVE) {
      await Promise.all(bodies.slice(i, i + WAVE).map((body) => InProcessQueue.prototype.send.call(runs, body)));
      await runs.idle();
    }
    return {
      schedule,
      schedule_requests: scheduleRequests,
      plan_messages: plans.sent - before.plans,
      plan_requests: planRequests,
      plan_ms: planned - started,
      run_messages: bodies.length,
      run_requests: t.stack.dynamo.requests() - requests - scheduleRequests - planRequests,
      provider_calls: calls.profile - before.profile + calls.gap - before.gap,
      run_ms: Date.now() - planned,
      total_ms: Date.now() - started,
      bodies,
    };
  };

  const first = await day();
  const second = await day();
  const { bodies: firstBodies, ...firstFigures } = first;
  const { bodies: _secondBodies, ...secondFigures } = second;
  console.log(
    JSON.stringify({ sites: SITES, competitors: COMPETITORS, wave: WAVE, first: firstFigures, second: secondFigures }),
  );

  const last = await t.store.sites.lastId();
  for (const figures of [first, second]) {
    expect(figures.schedule).toEqual({ sites: last, plans: Math.ceil(last / 100) });
    expect(figures.schedule_requests).toBe(1);
    expect(figures.plan_messages).toBe(Math.ceil(last / 100));
    expect(figures.plan_requests).toBe(Math.ceil(last / 100));
    expect(figures.run_messages).toBe(last);
  }
  expect(new Set(firstBodies.map((body) => (JSON.parse(body) as MonitorMessage).site_id)).size).toBe(last);
  // Each site's domain and its 10 competitors once, with the site's gap; the second schedule pays for nothing.
  expect(first.provider_calls).toBe(SITES * (COMPETITORS + 2) + 1); // + the demo site's own domain
  expect(second.provider_calls).toBe(0);
  expect(runs.deadLetters).toEqual([]);
  const sample = siteIds[SITES - 1]!;
  expect(await t.store.backlinks.latest(sample, `rival-${SITES - 1}-${COMPETITORS - 1}.com`)).not.toBeNull();
  const ledger = await t.store.usage.report(sample, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
  expect(ledger.calls).toBe(COMPETITORS + 2);
}, 900_000);
