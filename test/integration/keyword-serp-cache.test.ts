import { LIMITS, REFRESH_LOCALE, SerpItem, type SerpRow } from '@cm/contract';
import { Meter, SandboxKeywordData } from '@cm/providers';
import * as z from 'zod/mini';
import { fakeClock } from '../helpers/clock';
import { siteClient, useTestStack, type SiteClient } from '../helpers/local';
import { given, variant, type ToolArgs } from '../helpers/client';

/*
 * Keyword metrics and SERPs through the shared cache of public data: the second site that needs a datum
 * the same day makes no provider call and its ledger says so; tools the spec orders to pull fresh still
 * pull, and their answer serves the others; nothing a site owns crosses to another. Provider calls are
 * counted on the sandbox (the spies call through), at list prices (SANDBOX_LIST_PRICES=1).
 */

const t = useTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '50' } });
// The clock held at today's noon (UTC): a datum of "today" stays today's however long the file runs.
const NOON = Date.parse(`${new Date().toISOString().slice(0, 10)}T12:00:00.000Z`);
beforeAll(() => fakeClock(NOON));
afterAll(() => jest.useRealTimers());

let serpPulls: jest.SpiedFunction<SandboxKeywordData['serpOrganic']>;
let metricsPulls: jest.SpiedFunction<SandboxKeywordData['keywordMetrics']>;
beforeEach(() => {
  serpPulls = jest.spyOn(SandboxKeywordData.prototype, 'serpOrganic');
  metricsPulls = jest.spyOn(SandboxKeywordData.prototype, 'keywordMetrics');
});
afterEach(() => jest.restoreAllMocks());

const LOCALE = 'US/en';
const today = () => new Date().toISOString().slice(0, 10);
const sandbox = new SandboxKeywordData();
/** The SERP every site is answered from: the sandbox's public one, no site placed. */
const publicSerp = (keyword: string, locale = LOCALE) =>
  sandbox.serpOrganic(keyword, locale, LIMITS.serpDepth, new Meter());
const serpDatum = (keyword: string, locale = LOCALE) => ({
  kind: 'serp' as const,
  key: `${locale}#desktop#${LIMITS.serpDepth}#${keyword}`,
  day: today(),
});

/** A site of its own domain and locale, with a competitor of its own. */
async function siteOf(name: string): Promise<SiteClient & { domain: string; rival: string }> {
  const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
  const domain = `${slug}.example.com`;
  const rival = `${slug}-rival.com`;
  const site = await siteClient(t, name, { domain, locale: LOCALE });
  await site.client.tool('db_insert', { table: 'cm_competitors', row: { domain: rival, active: true } });
  return { ...site, domain, rival };
}

/** The site's usage report of the file's days (the clock held still, "now" would leave out what was just recorded). */
const usageOf = async (site: SiteClient) =>
  (await site.client.route('GET /v1/usage', { query: { to: new Date(NOON + 2 * 86_400_000).toISOString() } })).body;

/** The site's usage lines of one tool. */
async function ledger(site: SiteClient, tool: string) {
  return (await usageOf(site)).by_tool.filter((line) => line.tool === tool);
}

/** The site's SERP row of a keyword, as stored. */
const serpRow = (site: SiteClient, keyword: string, locale = LOCALE): Promise<SerpRow | null> =>
  t.store.serps.get(site.siteId, locale, keyword);

/** Every field a site owns that the calls below touch: its rows, SERP rows, ledger and budget. */
async function owned(site: SiteClient, keywords: readonly string[]) {
  const rows = async (table: ToolArgs<'db_select'>['table']) =>
    (await site.client.tool('db_select', { table, limit: 100 })).body.rows;
  return {
    topics: await rows('cm_topics'),
    keywords: await rows('cm_keywords'),
    links: await rows('cm_topic_keywords'),
    competitors: await rows('cm_competitors'),
    serps: await Promise.all(keywords.map((k) => serpRow(site, k))),
    usage: (await usageOf(site)).by_tool,
    budget: (await site.client.route('GET /v1/budget')).body.daily,
  };
}

describe('a SERP of the same keyword, locale, device and depth, the same day', () => {
  it('is pulled once: the second site lists it with no provider call, a $0 cached ledger line, nothing reserved, and its own positions', async () => {
    const a = await siteOf('Serp first');
    const b = await siteOf('Serp second');
    const keyword = 'cache trail running shoes';
    const first = (await a.client.tool('serp_landscape', { keyword, depth: 'list' })).body;
    expect(first).toMatchObject({ list: { fetched: [keyword] }, cached: false });
    expect(serpPulls).toHaveBeenCalledTimes(1);

    // B's budget cannot pay for a SERP: an answer of the cache reserves nothing, so it is answered all the same.
    await b.client.route('PUT /v1/budget', { body: { daily_usd: 0.0001 } });
    const estimate = (await b.client.tool('serp_landscape', { keyword, depth: 'list', estimate: true })).body;
    expect(estimate).toMatchObject({ calls: [], total_usd: 0 });
    expect(estimate.free).toEqual([{ what: 'serp', items: [keyword], reason: expect.stringMatching(/shared cache/) }]);
    const second = (await b.client.tool('serp_landscape', { keyword, depth: 'list' })).body;
    expect(second).toMatchObject({ list: { fetched: [keyword] }, cost_usd: 0, cached: true });
    expect(serpPulls).toHaveBeenCalledTimes(1);
    expect(await ledger(b, 'serp_landscape')).toEqual([
      { tool: 'serp_landscape', provider: 'sandbox', calls: 1, cost_usd: 0, cached_calls: 1 },
    ]);
    expect(await ledger(a, 'serp_landscape')).toEqual([
      { tool: 'serp_landscape', provider: 'sandbox', calls: 1, cost_usd: expect.any(Number), simulated: true },
    ]);
    expect((await b.client.route('GET /v1/budget')).body.daily).toMatchObject({
      spent_usd: 0,
      reserved_usd: 0,
      simulated_usd: 0,
    });

    // The cache holds the public SERP only; each site's row is that SERP with its own domain and rival placed.
    const shared = await t.store.shared.get(serpDatum(keyword), z.array(SerpItem));
    expect(shared).toEqual({
      value: await publicSerp(keyword),
      fetched_at: new Date(NOON).toISOString(),
      data_source: 'sandbox',
    });
    for (const site of [a, b]) {
      const row = await serpRow(site, keyword);
      expect(row).toEqual({
        keyword,
        locale: LOCALE,
        fetched_at: given(shared, 'the shared').fetched_at,
        data_source: 'sandbox',
        items: sandbox.placeTracked(given(shared, 'the shared').value, keyword, LOCALE, {
          siteDomain: site.domain,
          competitors: [site.rival],
        }),
      });
    }
    const domains = async (site: SiteClient) =>
      given(await serpRow(site, keyword), 'the serpRow').items.map((i) => i.domain);
    expect(await domains(b)).not.toEqual(expect.arrayContaining([a.domain]));
    expect(await domains(b)).not.toEqual(expect.arrayContaining([a.rival]));
    expect(await domains(a)).not.toEqual(expect.arrayContaining([b.domain]));
  });

  it('is pulled again the next day, and by serp_keyword_refresh always, whose answer then serves the other sites', async () => {
    const a = await siteOf('Refresh first');
    const b = await siteOf('Refresh second');
    const c = await siteOf('Refresh third');
    const keyword = 'cache refresh hiking boots';
    await a.client.tool('serp_keyword_refresh', { keyword });
    expect(serpPulls).toHaveBeenCalledTimes(1);
    // A refresh forces a fresh pull (spec §4.3) even with today's SERP in the cache: B pays for its own.
    expect((await b.client.tool('serp_keyword_refresh', { keyword, estimate: true })).body).toMatchObject({
      calls: [{ endpoint: 'serp_organic', count: 1 }],
    });
    const refreshed = (await b.client.tool('serp_keyword_refresh', { keyword })).body;
    expect(refreshed.cached).toBe(false);
    expect(serpPulls).toHaveBeenCalledTimes(2);
    expect(await ledger(b, 'serp_keyword_refresh')).toEqual([
      { tool: 'serp_keyword_refresh', provider: 'sandbox', calls: 1, cost_usd: expect.any(Number), simulated: true },
    ]);

    // C lists it in the refresh's locale: the refresh's answer serves it, at no cost.
    const listed = (await c.client.tool('serp_landscape', { keyword, depth: 'list' })).body;
    expect(listed).toMatchObject({ list: { fetched: [keyword] }, cost_usd: 0, cached: true });
    expect(serpPulls).toHaveBeenCalledTimes(2);
    expect(given(await serpRow(c, keyword, REFRESH_LOCALE), 'the serpRow').fetched_at).toBe(refreshed.row.fetched_at);

    // The next day, the day's first list pulls again.
    jest.setSystemTime(NOON + 86_400_000);
    try {
      const d = await siteOf('Next day');
      expect((await d.client.tool('serp_landscape', { keyword, depth: 'list' })).body.cached).toBe(false);
      expect(serpPulls).toHaveBeenCalledTimes(3);
    } finally {
      jest.setSystemTime(NOON);
    }
  });

  it('is paid by each site that missed it at the same moment, and by none twice: budgets and ledgers agree', async () => {
    const sites = await Promise.all(['Rush one', 'Rush two', 'Rush three'].map(siteOf));
    for (const site of sites) await site.client.route('PUT /v1/budget', { body: { daily_usd: 1 } });
    const keyword = 'cache concurrent sandals';
    const replies = await Promise.all(
      sites.map(async (site) => (await site.client.tool('serp_landscape', { keyword, depth: 'list' })).body),
    );
    const pulled = serpPulls.mock.calls.filter(([k]) => k === keyword).length;
    expect(pulled).toBeGreaterThanOrEqual(1);
    expect(pulled).toBeLessThanOrEqual(sites.length);
    // Each site got one answer: paid where its call pulled, else a cached line at $0; its budget holds what its ledger says.
    const paid = await Promise.all(
      sites.map(async (site, i) => {
        const lines = await ledger(site, 'serp_landscape');
        expect(lines.reduce((n, line) => n + line.calls, 0)).toBe(1);
        const cost = lines.reduce((sum, line) => sum + line.cost_usd, 0);
        expect(replies[i]?.cached).toBe(cost === 0);
        expect((await site.client.route('GET /v1/budget')).body.daily).toMatchObject({
          simulated_usd: cost,
          reserved_usd: 0,
        });
        return cost > 0 ? 1 : 0;
      }),
    );
    expect(paid.reduce((sum: number, n) => sum + n, 0)).toBe(pulled);
  });
});

describe("a keyword's metrics in a locale, the same day", () => {
  it('are pulled fresh by get_keywords, and then answer research keywords mode of another site with no provider call', async () => {
    const a = await siteOf('Metrics first');
    const b = await siteOf('Metrics second');
    // The last has no data in the sandbox (a word over 15 letters): its answer, none, is kept too.
    const seeds = ['cache trail shoes', 'cache road shoes', 'cache zzqxvwwwwwwwwwwwwwww shoes'];
    const pulled = (await a.client.tool('get_keywords', { seeds })).body;
    expect(pulled.no_data).toEqual([seeds[2]]);
    expect(metricsPulls).toHaveBeenCalledTimes(1);

    const estimate = (await b.client.tool('research', { mode: 'keywords', seed: seeds.join(', '), estimate: true }))
      .body;
    expect(estimate).toMatchObject({ calls: [], total_usd: 0 });
    expect(estimate.free).toEqual([{ what: 'keywords', items: seeds, reason: expect.stringMatching(/shared cache/) }]);
    const researched = (await b.client.tool('research', { mode: 'keywords', seed: seeds.join(', ') })).body;
    expect(metricsPulls).toHaveBeenCalledTimes(1);
    expect(researched).toMatchObject({ cost_usd: 0, cached: true });
    expect(await ledger(b, 'research')).toEqual([
      { tool: 'research', provider: 'sandbox', calls: 1, cost_usd: 0, cached_calls: 1 },
    ]);
    // The figures of A's pull; the seed without data at volume 0, as a pull without data answers.
    expect(variant(researched, 'mode', 'keywords').keywords).toEqual(
      seeds.map((keyword) => {
        const row = pulled.keywords.find((r) => r.keyword === keyword);
        return row
          ? { keyword, volume: row.volume, cpc_usd: row.cpc_usd, competition: row.competition, intent: row.intent }
          : { keyword, volume: 0, cpc_usd: null, competition: null, intent: null };
      }),
    );

    // get_keywords of B pulls fresh all the same (spec §4.3 rule 1), paid by B.
    await b.client.tool('get_keywords', { seeds });
    expect(metricsPulls).toHaveBeenCalledTimes(2);
    expect(await ledger(b, 'get_keywords')).toEqual([
      { tool: 'get_keywords', provider: 'sandbox', calls: 1, cost_usd: expect.any(Number), simulated: true },
    ]);
  });
});

describe("another provider's answers", () => {
  it('are no answer of this one: a SERP and metrics kept from another data source are pulled again, and replaced', async () => {
    const site = await siteOf('Other provider');
    const seeds = ['foreign trail shoes', 'foreign road shoes', 'foreign hiking shoes'];
    const keyword = given(seeds[0], 'the seeds[0]');
    const fetched_at = new Date(NOON).toISOString();
    const foreign = { fetched_at, data_source: 'dataforseo' };
    await t.store.shared.put(serpDatum(keyword), {
      ...foreign,
      value: [{ position: 1, domain: 'foreign.example', url: 'https://foreign.example/', title: 'Foreign' }],
    });
    const metricsDatum = (seed: string) => ({
      kind: 'keyword-metrics' as const,
      key: `${LOCALE}#${seed}`,
      day: today(),
    });
    for (const seed of seeds) await t.store.shared.put(metricsDatum(seed), { ...foreign, value: null });

    await site.client.tool('serp_landscape', { keyword, depth: 'list' });
    await site.client.tool('research', { mode: 'keywords', seed: seeds.join(', ') });
    expect(serpPulls).toHaveBeenCalledTimes(1);
    expect(metricsPulls).toHaveBeenCalledTimes(1);
    expect((await ledger(site, 'serp_landscape'))[0]).not.toHaveProperty('cached_calls');
    expect((await ledger(site, 'research'))[0]).not.toHaveProperty('cached_calls');
    expect(await t.store.shared.get(serpDatum(keyword), z.array(SerpItem))).toEqual({
      value: await publicSerp(keyword),
      fetched_at,
      data_source: 'sandbox',
    });
    const kept = await t.store.shared.get(metricsDatum(keyword), z.unknown());
    expect(kept).toMatchObject({ data_source: 'sandbox', value: { keyword } });
  });
});

describe('isolation through the shared cache', () => {
  it('carries nothing a site owns to another: two sites, one cache, every site-owned field of each its own', async () => {
    const a = await siteOf('Owner alpha');
    const b = await siteOf('Owner beta');
    const keywords = ['cache isolated boots', 'cache isolated socks'];
    const setUp = async (site: SiteClient, topicName: string) => {
      const topic = (await site.client.tool('db_insert', { table: 'cm_topics', row: { name: topicName } })).body.row.id;
      await site.client.tool('get_keywords', { topic_id: topic, seeds: keywords });
      await site.client.tool('serp_landscape', { topic_id: topic, depth: 'list' });
      await site.client.tool('serp_keyword_refresh', { keyword: given(keywords[0], 'the first keyword') });
      await site.client.tool('research', { mode: 'keywords', seed: `${keywords.join(', ')}, cache isolated laces` });
      return topic;
    };
    await setUp(a, 'Alpha topic');
    const before = await owned(a, keywords);
    const topicB = await setUp(b, 'Beta topic');
    await t.stack.drain();

    // A is as it was: B's calls, answered partly from what A's filled the cache with, changed nothing of A's.
    const ownedA = await owned(a, keywords);
    expect(ownedA).toEqual(before);
    const ownedB = await owned(b, keywords);
    // B's rows are its own: its topic, links of its topic to its keyword rows, its competitor, the keywords it named.
    expect(ownedB.topics.map((row) => [row.id, row.name])).toEqual([[topicB, 'Beta topic']]);
    const keywordIds = new Set<unknown>(ownedB.keywords.map((row) => row.id));
    expect(ownedB.links).toHaveLength(keywords.length);
    for (const link of ownedB.links) {
      expect(link.topic_id).toBe(topicB);
      expect(keywordIds.has(link.keyword_id)).toBe(true);
    }
    expect(ownedB.competitors.map((row) => row.domain)).toEqual([b.rival]);
    expect(ownedB.keywords.map((row) => row.keyword).sort()).toEqual([...keywords, 'cache isolated laces'].sort());
    // Each SERP row shows its own site and rival, never the other's.
    for (const [rows, other] of [
      [ownedA.serps, b],
      [ownedB.serps, a],
    ] as const) {
      for (const row of rows) {
        const domains = given(row, 'the row').items.map((item) => item.domain);
        expect(domains).not.toEqual(expect.arrayContaining([other.domain]));
        expect(domains).not.toEqual(expect.arrayContaining([other.rival]));
      }
    }
    // The ledgers: each answer a line of the site that got it. A's keywords mode found its own get_keywords'
    // metrics in the cache (one line); B's list found A's two SERPs, and its keywords mode all three metrics.
    const cachedCalls = (usage: Array<{ cached_calls?: number }>) =>
      usage.reduce((n, line) => n + (line.cached_calls ?? 0), 0);
    expect(cachedCalls(ownedA.usage)).toBe(1);
    expect(cachedCalls(ownedB.usage)).toBe(keywords.length + 1);

    // The cache's items hold the provider's public answer: no site's domain, rival or id.
    for (const keyword of keywords) {
      const shared = await t.store.shared.get(serpDatum(keyword), z.array(SerpItem));
      expect(given(shared, 'the shared').value).toEqual(await publicSerp(keyword));
      const text = JSON.stringify(shared);
      for (const site of [a, b]) {
        expect(text).not.toContain(site.domain);
        expect(text).not.toContain(site.rival);
      }
    }
  });
});
