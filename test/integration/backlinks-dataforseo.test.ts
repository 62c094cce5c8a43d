import {
  BACKLINK_ENDPOINTS,
  BULK_NUMBERS_ENDPOINTS,
  BULK_TARGETS,
  DataForSeoBacklinkData,
  Meter,
  ProviderError,
} from '@cm/providers';
import { fixture, type Recording, useReplay } from '../helpers/replay';
import { given } from '../helpers/client';

const replay = useReplay();
afterEach(() => jest.restoreAllMocks());

const NOW = new Date('2026-11-21T09:00:00Z');
const SITE = 'trailstride.com';

/** The adapter against the replay server, on a fixed clock, with pauses short enough for a test. */
const adapter = () =>
  new DataForSeoBacklinkData({
    login: 'api-login',
    password: 's3cret',
    baseUrl: replay.url,
    retries: 3,
    backoffMs: 2,
    random: () => 0.5,
    now: () => NOW,
  });

const PROFILE_FIXTURES: Record<string, string> = {
  [BACKLINK_ENDPOINTS.summary]: 'backlinks_summary.ok',
  [BACKLINK_ENDPOINTS.timeseries]: 'backlinks_timeseries.ok',
  [BACKLINK_ENDPOINTS.anchors]: 'backlinks_anchors.ok',
  [BACKLINK_ENDPOINTS.backlinks]: 'backlinks_backlinks.ok',
  [BACKLINK_ENDPOINTS.referringDomains]: 'backlinks_referring_domains.ok',
};

/** Every profile endpoint answers its recorded envelope, unless `override` says otherwise. */
function answerProfile(override: Record<string, Recording[]> = {}) {
  for (const [endpoint, name] of Object.entries(PROFILE_FIXTURES))
    replay.answer(endpoint, ...(override[endpoint] ?? [{ fixture: name }]));
}

const bodyOf = (endpoint: string) => replay.requests.find((r) => r.endpoint === endpoint)?.body;
const costsByEndpoint = (meter: Meter) => Object.fromEntries(meter.calls.map((c) => [c.endpoint, c.cost_usd]));

describe('DataForSEO backlink profile', () => {
  it('makes its five calls at once, each on the 0–1000 rank scale with its limits and order', async () => {
    answerProfile();
    const realFetch = globalThis.fetch;
    let inFlight = 0;
    let most = 0;
    jest.spyOn(globalThis, 'fetch').mockImplementation(async (...args) => {
      most = Math.max(most, ++inFlight);
      try {
        return await realFetch(...args);
      } finally {
        inFlight--;
      }
    });
    await adapter().profile(SITE, new Meter());

    expect(most).toBe(5);
    expect(replay.requests.map((r) => r.endpoint).sort()).toEqual(Object.keys(PROFILE_FIXTURES).sort());
    expect(
      replay.requests.every((r) => r.authorization === `Basic ${Buffer.from('api-login:s3cret').toString('base64')}`),
    ).toBe(true);
    expect(bodyOf(BACKLINK_ENDPOINTS.summary)).toEqual([{ target: SITE, rank_scale: 'one_thousand' }]);
    // 36 months back from November 2026: the month before the trend's first, to count its new referring domains.
    expect(bodyOf(BACKLINK_ENDPOINTS.timeseries)).toEqual([
      { target: SITE, date_from: '2023-11-01', group_range: 'month', rank_scale: 'one_thousand' },
    ]);
    expect(bodyOf(BACKLINK_ENDPOINTS.anchors)).toEqual([
      { target: SITE, limit: 20, order_by: ['backlinks,desc'], rank_scale: 'one_thousand' },
    ]);
    expect(bodyOf(BACKLINK_ENDPOINTS.backlinks)).toEqual([
      { target: SITE, mode: 'as_is', order_by: ['page_from_rank,desc'], limit: 20, rank_scale: 'one_thousand' },
    ]);
    expect(bodyOf(BACKLINK_ENDPOINTS.referringDomains)).toEqual([
      { target: SITE, limit: 100, order_by: ['rank,desc'], rank_scale: 'one_thousand' },
    ]);
  });

  it('maps the summary, with the dofollow share from the nofollow link count', async () => {
    answerProfile();
    const profile = await adapter().profile(SITE, new Meter());
    expect(profile.domain).toBe(SITE);
    // 1203 of the 4812 backlinks carry nofollow.
    expect(profile.summary).toEqual({
      backlinks: 4812,
      referring_domains: 1287,
      rank: 412,
      spam_score: 9,
      broken_links: 37,
      dofollow_share: 0.75,
    });
  });

  it('maps the trend: 36 months ending this month, new referring domains from the month-over-month growth, never negative', async () => {
    answerProfile();
    const { trend, summary } = await adapter().profile(SITE, new Meter());
    const recorded = fixture('backlinks_timeseries.ok').tasks[0].result[0].items as Array<{
      date: string;
      referring_domains: number;
      backlinks: number;
      rank: number;
    }>;

    expect(trend).toHaveLength(36);
    expect(given(trend[0], 'the trend[0]').month).toBe('2023-12');
    expect(trend.at(-1)).toEqual({
      month: '2026-11',
      backlinks: summary.backlinks,
      referring_domains: summary.referring_domains,
      new_referring_domains: 11,
      rank: summary.rank,
    });
    trend.forEach((point, i) => {
      const item = given(recorded[i + 1], 'the recorded[i + 1]');
      expect(point).toEqual({
        month: item.date.slice(0, 7),
        backlinks: item.backlinks,
        referring_domains: item.referring_domains,
        new_referring_domains: Math.max(
          0,
          item.referring_domains - given(recorded[i], 'the recorded[i]').referring_domains,
        ),
        rank: item.rank,
      });
    });
    expect(given(trend[0], 'the trend[0]').new_referring_domains).toBe(13); // 905 → 918
    expect(trend.find((p) => p.month === '2025-03')).toMatchObject({
      referring_domains: 1039,
      new_referring_domains: 0,
    }); // lost 14
  });

  it('leaves out a trend point whose date is null (the schema allows it): the profile is built, every call recorded', async () => {
    answerProfile();
    const { trend: recorded } = await adapter().profile(SITE, new Meter());
    replay.requests.length = 0;
    answerProfile({ [BACKLINK_ENDPOINTS.timeseries]: [{ fixture: 'backlinks_timeseries.null-date' }] });
    const meter = new Meter();
    const profile = await adapter().profile(SITE, meter);

    const items = fixture('backlinks_timeseries.null-date').tasks[0].result[0].items as Array<{ date: string | null }>;
    expect(items.filter((item) => item.date === null)).toHaveLength(1);
    // The same 36 months as without the undated point: it is neither a month of its own nor one month's figures.
    expect(profile.trend).toEqual(recorded);
    expect(profile.summary.backlinks).toBe(4812);
    expect(replay.requests).toHaveLength(5);
    expect(meter.calls).toHaveLength(5);
    expect(costsByEndpoint(meter)[BACKLINK_ENDPOINTS.timeseries]).toBe(fixture('backlinks_timeseries.null-date').cost);
  });

  it('maps anchors with their share of all backlinks, an image link’s missing anchor as empty text', async () => {
    answerProfile();
    const { anchors } = await adapter().profile(SITE, new Meter());
    expect(anchors).toEqual([
      { anchor: 'trailstride', backlinks: 1203, share: 0.25 },
      { anchor: 'trailstride.com', backlinks: 602, share: 0.1251 },
      { anchor: 'https://trailstride.com/', backlinks: 388, share: 0.0806 },
      { anchor: '', backlinks: 240, share: 0.0499 },
      { anchor: 'click here', backlinks: 151, share: 0.0314 },
      { anchor: 'trail running shoes', backlinks: 130, share: 0.027 },
    ]);
  });

  it('maps the top linking pages (authority is the linking page’s rank) and the referring domains', async () => {
    answerProfile();
    const profile = await adapter().profile(SITE, new Meter());
    expect(profile.top_linking_pages).toEqual([
      {
        url_from: 'https://www.runnersworld.com/gear/a41234567/best-trail-running-shoes/',
        url_to: 'https://trailstride.com/',
        anchor: 'trailstride',
        authority: 734,
        dofollow: true,
        first_seen: '2022-05-14',
      },
      {
        url_from: 'https://en.wikipedia.org/wiki/Trail_running',
        url_to: 'https://trailstride.com/about',
        anchor: 'trailstride.com',
        authority: 702,
        dofollow: false,
        first_seen: '2021-08-02',
      },
      {
        url_from: 'https://www.outsideonline.com/outdoor-gear/run/trail-shoe-review/',
        url_to: 'https://trailstride.com/products/ridge-2',
        anchor: 'trail running shoes',
        authority: 655,
        dofollow: true,
        first_seen: '2023-03-27',
      },
      {
        url_from: 'https://www.reddit.com/r/trailrunning/comments/1b8x2kq/budget_trail_shoes/',
        url_to: 'https://trailstride.com/',
        anchor: '',
        authority: 512,
        dofollow: false,
        first_seen: '2024-03-08',
      },
      {
        url_from: 'https://blog.ultrarunnerpodcast.com/gear-guide-2025/',
        url_to: 'https://trailstride.com/blog/old-sizing-guide',
        anchor: 'click here',
        authority: 388,
        dofollow: true,
        first_seen: null,
      },
    ]);
    expect(profile.referring_domains).toEqual([
      { domain: 'en.wikipedia.org', rank: 288, backlinks: 3 },
      { domain: 'www.runnersworld.com', rank: 241, backlinks: 7 },
      { domain: 'www.outsideonline.com', rank: 196, backlinks: 4 },
      { domain: 'www.reddit.com', rank: 173, backlinks: 12 },
      { domain: 'blog.ultrarunnerpodcast.com', rank: 89, backlinks: 2 },
    ]);
  });

  it('records the cost of each call on the meter', async () => {
    answerProfile();
    const meter = new Meter();
    await adapter().profile(SITE, meter);
    const expected = Object.fromEntries(
      Object.entries(PROFILE_FIXTURES).map(([endpoint, name]) => [endpoint, fixture(name).cost]),
    );
    expect(costsByEndpoint(meter)).toEqual(expected);
    expect(expected).toEqual({
      [BACKLINK_ENDPOINTS.summary]: 0.02003,
      [BACKLINK_ENDPOINTS.timeseries]: 0.02111,
      [BACKLINK_ENDPOINTS.anchors]: 0.02018,
      [BACKLINK_ENDPOINTS.backlinks]: 0.02015,
      [BACKLINK_ENDPOINTS.referringDomains]: 0.02015,
    });
    expect(meter.calls.every((c) => c.provider === 'dataforseo')).toBe(true);
    expect(meter.costUsd).toBe(0.10162);
  });

  it('reads an empty (40102) answer as a zero profile, not an error', async () => {
    const empty = [{ fixture: 'backlinks.40102' }];
    answerProfile(Object.fromEntries(Object.keys(PROFILE_FIXTURES).map((e) => [e, empty])));
    const meter = new Meter();
    const profile = await adapter().profile('brand-new-site.com', meter);
    expect(profile).toEqual({
      domain: 'brand-new-site.com',
      summary: { backlinks: 0, referring_domains: 0, rank: 0, spam_score: 0, broken_links: 0, dofollow_share: 0 },
      trend: [],
      anchors: [],
      top_linking_pages: [],
      referring_domains: [],
    });
    expect(meter.calls).toHaveLength(5);
    expect(replay.requests).toHaveLength(5); // empty is an answer: no retry
  });

  it.each([
    ['an internal error (50000, task level)', { fixture: 'serp_organic.50000' }],
    ['a rate limit (40202, envelope level)', { fixture: 'rate_limit.40202' }],
  ])('retries %s, then builds the profile', async (_name, transient) => {
    answerProfile({ [BACKLINK_ENDPOINTS.summary]: [transient, { fixture: 'backlinks_summary.ok' }] });
    const meter = new Meter();
    const profile = await adapter().profile(SITE, meter);
    expect(profile.summary.backlinks).toBe(4812);
    expect(replay.requests.filter((r) => r.endpoint === BACKLINK_ENDPOINTS.summary)).toHaveLength(2);
    expect(replay.requests).toHaveLength(6);
    expect(meter.calls).toHaveLength(6); // the failed attempt is in the ledger too
  });

  it.each([
    ['task level', 'serp_organic.40101'],
    ['envelope level, tasks null', 'tasks_null.40101'],
  ])(
    'fails a billed call without data (40101, %s) as retryable, after every call’s cost is recorded',
    async (_level, name) => {
      answerProfile({ [BACKLINK_ENDPOINTS.summary]: [{ fixture: name }] });
      const meter = new Meter();
      const error = await adapter()
        .profile(SITE, meter)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'dataforseo', retryable: true, code: 40101 });
      expect(meter.calls).toHaveLength(5);
      expect(costsByEndpoint(meter)[BACKLINK_ENDPOINTS.summary]).toBe(0.002);
    },
  );

  it('fails on a terminal error of one call without retrying it', async () => {
    answerProfile({ [BACKLINK_ENDPOINTS.referringDomains]: [{ fixture: 'search_volume.40501' }] });
    const meter = new Meter();
    const error = await adapter()
      .profile(SITE, meter)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ provider: 'dataforseo', retryable: false, code: 40501 });
    expect(replay.requests).toHaveLength(5);
    expect(meter.calls).toHaveLength(5);
  });
});

describe('DataForSEO backlinks', () => {
  it('asks for up to 1000 backlinks as is, strongest linking page first', async () => {
    replay.answer(BACKLINK_ENDPOINTS.backlinks, { fixture: 'backlinks_backlinks.ok' });
    const meter = new Meter();
    const links = await adapter().links(SITE, 5000, meter);
    expect(bodyOf(BACKLINK_ENDPOINTS.backlinks)).toEqual([
      { target: SITE, mode: 'as_is', order_by: ['page_from_rank,desc'], limit: 1000, rank_scale: 'one_thousand' },
    ]);
    expect(links.map((l) => l.authority)).toEqual([734, 702, 655, 512, 388]);
    expect(meter.calls).toEqual([
      { provider: 'dataforseo', endpoint: BACKLINK_ENDPOINTS.backlinks, cost_usd: 0.02015 },
    ]);
  });

  it('cuts to the limit asked', async () => {
    replay.answer(BACKLINK_ENDPOINTS.backlinks, { fixture: 'backlinks_backlinks.ok' });
    const links = await adapter().links(SITE, 3, new Meter());
    expect(bodyOf(BACKLINK_ENDPOINTS.backlinks)[0].limit).toBe(3);
    expect(links).toHaveLength(3);
  });
});

describe('DataForSEO link gap', () => {
  it('intersects the competitors excluding the site, and orders by competitors linked, then rank', async () => {
    replay.answer(BACKLINK_ENDPOINTS.domainIntersection, { fixture: 'backlinks_domain_intersection.ok' });
    const meter = new Meter();
    const gap = await adapter().linkGap(SITE, ['rival-shoes.com', 'runfast.io'], 50, meter);

    expect(replay.requests.map((r) => r.endpoint)).toEqual([BACKLINK_ENDPOINTS.domainIntersection]);
    expect(given(replay.requests[0], 'the replay.requests[0]').body).toEqual([
      {
        targets: { '1': 'rival-shoes.com', '2': 'runfast.io' },
        exclude_targets: [SITE],
        limit: 50,
        order_by: ['intersections_count,desc', '1.rank,desc'],
        rank_scale: 'one_thousand',
      },
    ]);
    // A domain's rank is its strongest towards any competitor; a null target entry means no link to it.
    expect(gap).toEqual([
      { domain: 'www.trailrunnermag.com', rank: 640, links_to: ['rival-shoes.com', 'runfast.io'] },
      { domain: 'www.irunfar.com', rank: 498, links_to: ['rival-shoes.com', 'runfast.io'] },
      { domain: 'www.believeintherun.com', rank: 700, links_to: ['rival-shoes.com'] },
      { domain: 'runningshoesguru.com', rank: 455, links_to: ['runfast.io'] },
    ]);
    expect(meter.calls).toEqual([
      { provider: 'dataforseo', endpoint: BACKLINK_ENDPOINTS.domainIntersection, cost_usd: 0.02012 },
    ]);
  });

  it('cuts to the limit, and asks nothing without competitors', async () => {
    replay.answer(BACKLINK_ENDPOINTS.domainIntersection, { fixture: 'backlinks_domain_intersection.ok' });
    expect(await adapter().linkGap(SITE, ['rival-shoes.com', 'runfast.io'], 2, new Meter())).toHaveLength(2);
    replay.requests.length = 0;
    const meter = new Meter();
    expect(await adapter().linkGap(SITE, [], 50, meter)).toEqual([]);
    expect(replay.requests).toHaveLength(0);
    expect(meter.calls).toHaveLength(0);
  });
});

describe('DataForSEO daily numbers in bulk', () => {
  const DOMAINS = ['trailstride.com', 'rival-shoes.com', 'no-links-yet.example'];
  const answerNumbers = () => {
    replay.answer(BACKLINK_ENDPOINTS.bulkPagesSummary, { fixture: 'backlinks_bulk_pages_summary.ok' });
    replay.answer(BACKLINK_ENDPOINTS.bulkNewLostBacklinks, { fixture: 'backlinks_bulk_new_lost_backlinks.ok' });
    replay.answer(BACKLINK_ENDPOINTS.bulkNewLostReferringDomains, {
      fixture: 'backlinks_bulk_new_lost_referring_domains.ok',
    });
  };

  it('asks for every domain in three bulk requests: the summary on the 0–1000 scale, new and lost since the month began', async () => {
    answerNumbers();
    const meter = new Meter();
    await adapter().numbers(DOMAINS, meter);
    expect(replay.requests.map((r) => r.endpoint).sort()).toEqual([...BULK_NUMBERS_ENDPOINTS].sort());
    expect(bodyOf(BACKLINK_ENDPOINTS.bulkPagesSummary)).toEqual([{ targets: DOMAINS, rank_scale: 'one_thousand' }]);
    for (const endpoint of [BACKLINK_ENDPOINTS.bulkNewLostBacklinks, BACKLINK_ENDPOINTS.bulkNewLostReferringDomains])
      expect(bodyOf(endpoint)).toEqual([{ targets: DOMAINS, date_from: '2026-11-01' }]);
    // Each request once, at the cost its answer reports.
    expect(meter.calls).toHaveLength(3);
    expect(costsByEndpoint(meter)).toEqual(Object.fromEntries(BULK_NUMBERS_ENDPOINTS.map((e) => [e, 0.02009])));
  });

  it('maps each row to its domain, however the summary echoes the target; a domain without rows has empty numbers', async () => {
    answerNumbers();
    const numbers = await adapter().numbers(DOMAINS, new Meter());
    expect(numbers.get('trailstride.com')).toEqual({
      summary: {
        backlinks: 4812,
        referring_domains: 1287,
        rank: 412,
        spam_score: 9,
        broken_links: 37,
        // 1203 of the 4812 backlinks carry nofollow.
        dofollow_share: 0.75,
      },
      new_backlinks: 143,
      lost_backlinks: 61,
      new_referring_domains: 18,
      lost_referring_domains: 7,
    });
    // Echoed as https://www.rival-shoes.com/; no link attributes (all dofollow), lost_backlinks null.
    expect(numbers.get('rival-shoes.com')).toMatchObject({
      summary: { backlinks: 20110, rank: 655, dofollow_share: 1 },
      new_backlinks: 512,
      lost_backlinks: 0,
    });
    expect(numbers.get('no-links-yet.example')).toEqual({
      summary: { backlinks: 0, referring_domains: 0, rank: 0, spam_score: 0, broken_links: 0, dofollow_share: 0 },
      new_backlinks: 0,
      lost_backlinks: 0,
      new_referring_domains: 0,
      lost_referring_domains: 0,
    });
  });

  it('takes at most 100 domains a request (DataForSEO counts each as a main domain), and nothing for none', async () => {
    const many = Array.from({ length: BULK_TARGETS + 1 }, (_v, i) => `d${i}.com`);
    await expect(adapter().numbers(many, new Meter())).rejects.toThrow('at most 100 domains');
    expect((await adapter().numbers([], new Meter())).size).toBe(0);
    expect(replay.requests).toEqual([]);
  });

  it('takes the trend in one range call and the detail in three, the anchors’ shares of the backlinks given', async () => {
    answerProfile();
    const meter = new Meter();
    const trend = await adapter().trend(SITE, meter);
    const detail = await adapter().detail(SITE, 4812, meter);
    expect(meter.calls.map((c) => c.endpoint).sort()).toEqual(
      [
        BACKLINK_ENDPOINTS.timeseries,
        BACKLINK_ENDPOINTS.anchors,
        BACKLINK_ENDPOINTS.backlinks,
        BACKLINK_ENDPOINTS.referringDomains,
      ].sort(),
    );
    expect(trend).toEqual((await adapter().profile(SITE, new Meter())).trend);
    expect(detail.anchors[0]?.share).toBeCloseTo((detail.anchors[0]?.backlinks ?? 0) / 4812, 4);
    expect(detail.top_linking_pages.length).toBeGreaterThan(0);
    expect(detail.referring_domains.length).toBeGreaterThan(0);
  });
});
