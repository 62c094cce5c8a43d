import * as z from 'zod/mini';
import { RankCollectMessage, RankMessage, SharedRankSerp, type Enqueue } from '@cm/contract';
import { rankRowOf } from '@cm/core';
import { Meter, rankCheckPrice, SandboxSerpQueue, UnknownOutcome, type SerpTask } from '@cm/providers';
import { checkKey } from '@cm/store';
import { collectRankChecks, runRankChecks, type SiteBudget } from '@cm/tools';
import { datedPlacement } from '../../packages/providers/src/sandbox/dated-serp';
import { sandboxSerp } from '../../packages/providers/src/sandbox/serp';
import { rankSerpDatum } from '../../packages/tools/src/rank-serps';
import { fakeClock } from '../helpers/clock';
import { useTestStack } from '../helpers/local';
import { seedRankSites, type RankSite } from '../helpers/rank-seed';
import { given } from '../helpers/client';

/*
 * Rank checks of one keyword on one day for several sites are one provider task: the first site's run
 * claims the SERP and pays for it, the others read it from the shared cache ($0, `cached: true`), and
 * each site's rows place its own domain in the one public SERP.
 */

const t = useTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
const SITES = 3;
const KEYWORDS = 4;
const NOON = Date.parse('2031-06-02T12:00:00.000Z');
const dayOf = (offset: number) => new Date(NOON + offset * 86_400_000).toISOString().slice(0, 10);
const PRICE = rankCheckPrice(20);

let sites: RankSite[];
/** Tasks posted, by tag (the SERP's identity and day). */
let tasks: Map<string, number>;
/** What the next post throws instead of posting, if anything. */
let failNextPost: Error | null = null;
beforeAll(async () => {
  // Every site tracks the same keywords.
  sites = await seedRankSites(t, SITES, KEYWORDS, dayOf(0), (_site, count) =>
    Array.from({ length: count }, (_v, i) => `keyword ${i + 1} of all`),
  );
});
beforeEach(() => {
  fakeClock(NOON);
  tasks = new Map();
  const post = SandboxSerpQueue.prototype.post;
  jest.spyOn(SandboxSerpQueue.prototype, 'post').mockImplementation(function (
    this: SandboxSerpQueue,
    sent: readonly SerpTask[],
    meter,
  ) {
    const failure = failNextPost;
    failNextPost = null;
    if (failure) return Promise.reject(failure);
    for (const task of sent) tasks.set(task.tag, (tasks.get(task.tag) ?? 0) + 1);
    return post.call(this, sent, meter);
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

/** A site's ledger of rank checks so far (all of them recorded today, whatever day they check): lines, those the shared cache answered, and their (simulated) cost. */
async function ledgerOf(siteId: number) {
  const today = dayOf(0);
  const report = await t.store.usage.report(siteId, `${today}T00:00:00.000Z`, `${today}T23:59:59.999Z`);
  const lines = report.by_tool.filter((line) => line.tool === 'rank_tracking');
  return {
    calls: lines.reduce((sum, line) => sum + line.calls, 0),
    cached: lines.reduce((sum, line) => sum + (line.cached_calls ?? 0), 0),
    cost: lines.reduce((sum, line) => sum + line.cost_usd, 0),
  };
}

/** The site's row of a keyword on the day, if checked. */
async function rowOf(site: RankSite, keyword: string, day: string) {
  const checks = await t.store.ranks.checksOn(site.siteId, [{ locale: 'US/en', keyword }], day);
  const check = checks.get(checkKey('US/en', keyword));
  return check?.state === 'checked' ? check.row : null;
}

describe('one keyword, one day, several sites', () => {
  it("posts one provider task per keyword for all the sites tracking it; each site's row places its own domain as its own check would have; the poster pays, the others get $0 cached lines", async () => {
    const day = dayOf(0);
    await t.stack.runSchedule(new Date(NOON));
    await t.stack.drain();

    // One task per keyword of the day, not one per site.
    expect(tasks.size).toBe(KEYWORDS);
    expect(Math.max(...tasks.values())).toBe(1);

    const placed = new Set<string>();
    for (const site of sites)
      for (const keyword of site.keywords) {
        const row = await rowOf(site, keyword, day);
        // As a check of the site's own would have placed it: the site's domain, on the day.
        const alone = rankRowOf({
          keyword,
          locale: 'US/en',
          device: 'desktop',
          day,
          checkedAt: row?.checked_at ?? '',
          dataSource: 'sandbox',
          depth: 20,
          items: sandboxSerp(
            keyword,
            'US/en',
            20,
            { siteDomain: site.domain, competitors: [] },
            datedPlacement(day, site.domain),
          ),
          siteDomain: site.domain,
        });
        expect(row).toMatchObject(alone);
        // No other site's domain in it: what one site sees of the SERP is its own.
        for (const other of sites.filter((s) => s !== site))
          expect(row?.domains.map((d) => d.domain)).not.toContain(other.domain);
        placed.add(`${keyword}: ${JSON.stringify(row?.site_results)}`);
      }
    // The sites do not all rank alike: each row is the site's own.
    expect(placed.size).toBeGreaterThan(KEYWORDS);

    // The shared cache holds the public SERP alone: no site's domain.
    const shared = await t.store.shared.get(
      rankSerpDatum(
        {
          locale: 'US/en',
          device: 'desktop',
          keyword: given(given(sites[0], 'the sites[0]').keywords[0], 'the sites[0].keywords[0]'),
        },
        20,
        day,
      ),
      SharedRankSerp,
    );
    expect(shared?.value).toEqual({ items: expect.any(Array), ai_overview: expect.any(Object) });
    const sharedDomains = JSON.stringify(shared?.value);
    for (const site of sites) expect(sharedDomains).not.toContain(site.domain);

    // Each site's row of the day records the one shared SERP's AI Overview as the site sees it.
    const serpQueue = new SandboxSerpQueue();
    for (const keyword of given(sites[0], 'the sites[0]').keywords) {
      const serp = await t.store.shared.get(
        rankSerpDatum({ locale: 'US/en', keyword, device: 'desktop' }, 20, day),
        SharedRankSerp,
      );
      const overview = serp && 'items' in serp.value ? serp.value.ai_overview : undefined;
      for (const site of sites)
        expect((await rowOf(site, keyword, day))?.ai_overview).toEqual(
          serpQueue.citeTracked(given(overview, 'the overview'), keyword, 'US/en', {
            siteDomain: site.domain,
            competitors: [],
            day,
          }),
        );
    }

    // Each site has a line per check; the posts' lines are paid once in all, every other line is cached at $0.
    const ledgers = await Promise.all(sites.map((site) => ledgerOf(site.siteId)));
    for (const ledger of ledgers) {
      expect(ledger.calls).toBe(KEYWORDS);
      expect(ledger.cost).toBeCloseTo((ledger.calls - ledger.cached) * PRICE, 9);
    }
    expect(ledgers.reduce((sum, l) => sum + l.calls - l.cached, 0)).toBe(KEYWORDS);
    expect(ledgers.reduce((sum, l) => sum + l.cached, 0)).toBe((SITES - 1) * KEYWORDS);
    for (const queue of [t.stack.queues.rank, t.stack.queues['rank-collect']]) expect(queue.deadLetters).toEqual([]);

    // The schedule again that day posts nothing and adds no line.
    await t.stack.runSchedule(new Date(NOON));
    await t.stack.drain();
    expect(tasks.size).toBe(KEYWORDS);
    expect(Math.max(...tasks.values())).toBe(1);
    for (const [i, site] of sites.entries()) expect(await ledgerOf(site.siteId)).toEqual(ledgers[i]);
  });
});

describe('a check awaiting another run', () => {
  /** Messages a run or a collection queued, decoded as their workers read them. */
  let collects: RankCollectMessage[];
  let reruns: RankMessage[];
  const enqueue: Enqueue = (queue, body) => {
    if (queue === 'rank-collect') collects.push(z.parse(RankCollectMessage, body));
    if (queue === 'rank') reruns.push(z.parse(RankMessage, body));
    return Promise.resolve();
  };
  beforeEach(() => {
    collects = [];
    reruns = [];
  });
  const serpQueue = new SandboxSerpQueue();
  const deps = () => ({
    store: t.store,
    serpQueue,
    meter: new Meter({ listPrices: true }),
    now: new Date(),
    enqueue,
    budget: {} as SiteBudget,
    checkPriceUsd: () => 0,
  });
  const run = (site: RankSite, day: string) =>
    runRankChecks(deps(), { site_id: site.siteId, day, requested_at: new Date().toISOString() } satisfies RankMessage);
  const collect = (message: RankCollectMessage) => collectRankChecks(deps(), message);

  it('waits while the run that claimed its SERP holds the claim; once that run gives it back, its site claims and posts it itself, and pays', async () => {
    const day = dayOf(1);
    const [site] = sites;
    const keyword = given(given(site, 'the site').keywords[0], 'the site.keywords[0]');
    const datum = rankSerpDatum({ locale: 'US/en', keyword, device: 'desktop' }, 20, day);
    // Another site's run claimed this SERP, and has not posted it yet.
    expect(await t.store.shared.claim(datum, 'another-run', new Date())).toBe(true);

    const outcome = await run(given(site, 'the site'), day);
    expect(outcome).toMatchObject({ posted: KEYWORDS - 1, awaited: 1, fromShared: 0 });
    const [awaiting] = collects.filter((m) => m.awaiting);
    expect(awaiting?.awaiting?.checks).toEqual([{ locale: 'US/en', keyword, device: 'desktop' }]);
    expect(tasks.size).toBe(KEYWORDS - 1);

    // Its poster still holds the claim: not ready, collected again later.
    expect(await collect(given(awaiting, 'the awaiting'))).toMatchObject({
      stored: 0,
      pending: [{ keyword }],
      rerun: 0,
    });
    expect(await rowOf(given(site, 'the site'), keyword, day)).toBeNull();

    // The poster gives the claim back (it could not pay): the site's run is queued again, and posts it.
    await t.store.shared.giveBack(datum, 'another-run', new Date());
    collects = [];
    expect(await collect(given(awaiting, 'the awaiting'))).toMatchObject({ stored: 0, pending: [], rerun: 1 });
    const [again] = reruns;
    expect(again).toMatchObject({ site_id: given(site, 'the site').siteId, day });
    const before = await ledgerOf(given(site, 'the site').siteId);
    expect(await runRankChecks(deps(), given(again, 'the again'))).toMatchObject({
      posted: 1,
      awaited: 0,
      claimedAlready: KEYWORDS - 1,
    });
    expect(tasks.get(`${day}|${datum.key}`)).toBe(1);
    for (const message of collects) await collect(message);
    expect(await rowOf(given(site, 'the site'), keyword, day)).toMatchObject({ keyword, day });
    const after = await ledgerOf(given(site, 'the site').siteId);
    // Its own call, not a cached one: earlier tests' schedules, whose runs race for the poster, may have left it some.
    expect(after).toMatchObject({ calls: before.calls + 1, cached: before.cached });
    expect(after.cost).toBeCloseTo(before.cost + PRICE, 9);
  });

  it('reads why a SERP failed for good from the shared cache: its day fails for every site awaiting it, each with a $0 line, and nothing is posted again', async () => {
    const day = dayOf(2);
    const [poster, waiter] = sites;
    const keyword = given(given(poster, 'the poster').keywords[0], 'the poster.keywords[0]');
    const refused = jest.spyOn(serpQueue, 'collect').mockResolvedValue({ status: 'failed', error: '40101 no SERP' });
    await run(given(poster, 'the poster'), day);
    expect(tasks.size).toBe(KEYWORDS);
    const before = await ledgerOf(given(waiter, 'the waiter').siteId);
    await run(given(waiter, 'the waiter'), day);
    expect(tasks.size).toBe(KEYWORDS);
    for (const message of collects) await collect(message);
    refused.mockRestore();
    for (const site of [given(poster, 'the poster'), given(waiter, 'the waiter')]) {
      const checks = await t.store.ranks.latest(site.siteId, 'US/en', keyword, 1);
      expect(checks.failed).toEqual([{ day, keyword, error: '40101 no SERP' }]);
    }
    const after = await ledgerOf(given(waiter, 'the waiter').siteId);
    expect({ calls: after.calls - before.calls, cached: after.cached - before.cached }).toEqual({
      calls: KEYWORDS,
      cached: KEYWORDS,
    });
    expect(after.cost).toBeCloseTo(before.cost, 9);
  });

  it("keeps the site's claims of a post whose outcome is unknown (it may be paid), and gives its SERPs' claims back for the sites awaiting them", async () => {
    const day = dayOf(3);
    const [site, other] = sites;
    const keyword = given(given(site, 'the site').keywords[0], 'the site.keywords[0]');
    const datum = rankSerpDatum({ locale: 'US/en', keyword, device: 'desktop' }, 20, day);
    failNextPost = new UnknownOutcome('sandbox', 'no answer', true);
    await expect(run(given(site, 'the site'), day)).rejects.toThrow('no answer');
    // The site keeps its claim: it never posts that check again that day.
    expect(
      (await t.store.ranks.checksOn(given(site, 'the site').siteId, [{ locale: 'US/en', keyword }], day)).get(
        checkKey('US/en', keyword),
      ),
    ).toEqual({ state: 'claimed' });
    expect(await run(given(site, 'the site'), day)).toMatchObject({ posted: 0, claimedAlready: KEYWORDS });
    // Another site claims the SERP and posts it, and pays.
    expect(await run(given(other, 'the other'), day)).toMatchObject({ posted: KEYWORDS, awaited: 0 });
    expect(tasks.get(`${day}|${datum.key}`)).toBe(1);
  });

  it('gives back every claim it took when a SERP claim cannot be written, before anything is paid; the message run again checks each keyword once', async () => {
    const day = dayOf(4);
    const [site] = sites;
    const claim = t.store.shared.claim.bind(t.store.shared);
    let claims = 0;
    jest.spyOn(t.store.shared, 'claim').mockImplementation((datum, runId, now) => {
      if (++claims === 2) return Promise.reject(new Error('the table did not answer'));
      return claim(datum, runId, now);
    });
    await expect(run(given(site, 'the site'), day)).rejects.toThrow('the table did not answer');
    expect(tasks.size).toBe(0);
    expect(await run(given(site, 'the site'), day)).toMatchObject({ posted: KEYWORDS, claimedAlready: 0, awaited: 0 });
    expect(Math.max(...tasks.values())).toBe(1);
  });

  it("gives back the SERPs it claimed when its budget cannot be read before posting: another site's run then posts them, and its own redelivery checks each keyword", async () => {
    const day = dayOf(6);
    const [first, second] = sites;
    const failing = {
      reserveQueued: () => Promise.reject(new Error('the budget did not answer')),
    } as unknown as SiteBudget;
    const priced = { ...deps(), budget: failing, checkPriceUsd: () => PRICE };
    const message = (site: RankSite) => ({ site_id: site.siteId, day, requested_at: new Date().toISOString() });
    await expect(runRankChecks(priced, message(given(first, 'the first')))).rejects.toThrow(
      'the budget did not answer',
    );
    expect(tasks.size).toBe(0);
    // Held, the claims would leave the second site awaiting a SERP no run posts: it posts them itself.
    expect(await run(given(second, 'the second'), day)).toMatchObject({ posted: KEYWORDS, awaited: 0 });
    // The first site's message delivered again awaits them (its own claims were given back too).
    expect(await run(given(first, 'the first'), day)).toMatchObject({
      posted: 0,
      claimedAlready: 0,
      awaited: KEYWORDS,
    });
    expect(Math.max(...tasks.values())).toBe(1);
  });

  it("does not take another provider's SERP from the cache (a deployment that changed providers): it posts its own", async () => {
    const day = dayOf(5);
    const [site] = sites;
    const keyword = given(given(site, 'the site').keywords[0], 'the site.keywords[0]');
    await t.store.shared.put(rankSerpDatum({ locale: 'US/en', keyword, device: 'desktop' }, 20, day), {
      value: { items: [] },
      fetched_at: new Date().toISOString(),
      data_source: 'dataforseo',
    });
    expect(await run(given(site, 'the site'), day)).toMatchObject({ posted: KEYWORDS, fromShared: 0, awaited: 0 });
  });
});
