import { LIMITS, type AiOverview, type RankRow, type SerpRow } from '@cm/contract';
import { aiShareOfVoice, citationShare, ctrAt, landscapeMetrics, rankHistory } from '@cm/core';
import { Meter, SandboxSerpQueue } from '@cm/providers';
import { aiOverviewOf } from '../../packages/providers/src/dataforseo/ai-overview';
import { given } from '../helpers/client';
import { checkedRankRow } from '../helpers/rank-rows';

/* AI Overviews in rank tracking: a SERP's overview read, weighed, and shown beside the organic positions. */

const SITE = 'shop.example';
const RIVAL = 'rival.com';
const overview = (...references: Array<[string, string]>): AiOverview => ({
  shown: true,
  references: references.map(([domain, url]) => ({ domain, url })),
  references_loaded: true,
});
const NONE: AiOverview = { shown: false, references: [], references_loaded: true };

describe("DataForSEO's ai_overview item", () => {
  it('keeps at most LIMITS.aiOverviewReferencesMax references, none with a URL past LIMITS.aiOverviewUrlMax; an item it cannot read is shown, its citations unknown', () => {
    const references = Array.from({ length: LIMITS.aiOverviewReferencesMax + 5 }, (_v, i) => ({
      domain: `source-${i}.example`,
      url: `https://source-${i}.example/${i === 0 ? 'x'.repeat(LIMITS.aiOverviewUrlMax) : 'page'}`,
    }));
    const read = aiOverviewOf([{ items: [{ type: 'ai_overview', references }] }]);
    expect(read.references).toHaveLength(LIMITS.aiOverviewReferencesMax);
    expect(read.references[0]?.domain).toBe('source-1.example');
    expect(aiOverviewOf([{ items: [{ type: 'ai_overview', references: 'not a list' }] }])).toEqual({
      shown: true,
      references: [],
      references_loaded: false,
    });
    expect(aiOverviewOf([])).toEqual(NONE);
    // A reference naming no domain and no URL one can read a host from says nothing: left out.
    expect(
      aiOverviewOf([
        { items: [{ type: 'ai_overview', references: [{ url: 'not a url' }, { url: 'https://a.example/p' }] }] },
      ]),
    ).toEqual({
      shown: true,
      references: [{ domain: 'a.example', url: 'https://a.example/p' }],
      references_loaded: true,
    });
  });
});

describe('the weighting of a citation', () => {
  it("shares an overview's searches equally among its references; a share of voice weighs them by volume", () => {
    const cites = overview(
      [`www.${SITE}`, 'https://www.shop.example/a'],
      [RIVAL, 'https://rival.com/x'],
      ['wiki.org', 'https://wiki.org/k'],
      [`blog.${SITE}`, 'https://blog.shop.example/b'],
    );
    expect(citationShare(cites, SITE)).toBe(0.5);
    expect(citationShare(cites, RIVAL)).toBe(0.25);
    expect(citationShare(NONE, SITE)).toBe(0);
    expect(citationShare({ shown: true, references: [], references_loaded: false }, SITE)).toBe(0);
    // 300 searches with the overview above (the site half of it), 100 with none.
    expect(
      aiShareOfVoice(
        [
          { volume: 300, overview: cites },
          { volume: 100, overview: NONE },
        ],
        SITE,
      ),
    ).toEqual({
      ai_sov: 0.375,
      ai_cited: 1,
    });
    expect(aiShareOfVoice([], SITE)).toEqual({ ai_sov: null, ai_cited: 0 });
  });
});

describe("the history's AI Overviews", () => {
  const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
  const row = (keyword: string, day: string, ai?: AiOverview): RankRow =>
    checkedRankRow(keyword, day, {
      domains: [{ domain: SITE, position: 2, url: `https://${SITE}/articles/k` }],
      site_results: [{ position: 2, url: `https://${SITE}/articles/k` }],
      ...(ai ? { ai_overview: ai } : {}),
    });
  const rows: Record<string, RankRow[]> = {
    alpha: [
      // Checked before AI Overviews were recorded: nothing known that day.
      row('alpha', '2026-03-01'),
      row(
        'alpha',
        '2026-03-02',
        overview([`www.${SITE}`, `https://www.${SITE}/articles/alpha`], ['wiki.org', 'https://wiki.org/a']),
      ),
      row('alpha', '2026-03-03', overview([RIVAL, 'https://rival.com/alpha'], ['wiki.org', 'https://wiki.org/a'])),
    ],
    beta: [row('beta', '2026-03-02', NONE), row('beta', '2026-03-03', overview(['wiki.org', 'https://wiki.org/b']))],
  };
  const history = rankHistory({
    days,
    keywords: [
      { keyword: 'alpha', locale: 'US/en', volume: 300 },
      { keyword: 'beta', locale: 'US/en', volume: 100 },
    ],
    rowsOf: (k) => rows[k.keyword] ?? [],
    siteDomain: SITE,
    competitors: [RIVAL],
    colors: new Map([[RIVAL, '#ff0000']]),
    pages: [],
    overCap: [],
    failed: [],
  });

  it('shows per keyword and day whether an overview was shown, and the URL it cited of the site and of each tracked competitor', () => {
    expect(history.ai_overviews.shown).toEqual([null, 1, 2]);
    expect(history.ai_overviews.keywords).toEqual([
      {
        keyword: 'alpha',
        locale: 'US/en',
        shown: [null, true, true],
        cited: {
          [SITE]: [null, `https://www.${SITE}/articles/alpha`, null],
          [RIVAL]: [null, null, 'https://rival.com/alpha'],
        },
      },
      {
        keyword: 'beta',
        locale: 'US/en',
        shown: [null, false, true],
        cited: { [SITE]: [null, null, null], [RIVAL]: [null, null, null] },
      },
    ]);
  });

  it("shows each domain's citations and AI Overview share of voice per day, the site and competitors first, then the most cited others", () => {
    expect(history.ai_overviews.domains).toEqual([
      { domain: SITE, is_site: true, is_competitor: false, cited: [null, 1, 0], sov: [null, 0.375, 0] },
      {
        domain: RIVAL,
        is_site: false,
        is_competitor: true,
        color: '#ff0000',
        cited: [null, 0, 1],
        sov: [null, 0, 0.375],
      },
      { domain: 'wiki.org', is_site: false, is_competitor: false, cited: [null, 1, 2], sov: [null, 0.375, 0.625] },
    ]);
    // Organic visibility is what it was: the overviews weigh nothing in it (position 2 on the curve, each day).
    const second = ctrAt(2);
    expect(history.visibility[0]).toMatchObject({
      domain: SITE,
      clicks: [300 * second, 400 * second, 400 * second].map((clicks) => Math.round(clicks * 10) / 10),
      sov: [second, second, second],
    });
  });
});

describe("the landscape's share of voice", () => {
  const serp = (keyword: string, ai?: AiOverview): SerpRow => ({
    keyword,
    locale: 'US/en',
    fetched_at: '2026-03-02T06:00:00.000Z',
    data_source: 'sandbox',
    items: [
      { position: 1, domain: RIVAL, url: `https://${RIVAL}/${keyword}`, title: '' },
      { position: 2, domain: SITE, url: `https://${SITE}/${keyword}`, title: '' },
    ],
    ...(ai ? { ai_overview: ai } : {}),
  });
  const keyword = (name: string, volume: number) => ({
    keyword: name,
    keyword_id: 1,
    is_idea: false,
    locale: 'US/en',
    volume,
    cpc_usd: null,
    competition: null,
    intent: null,
  });
  const input = (serps: Record<string, SerpRow>) => ({
    keywords: [keyword('alpha', 300), keyword('beta', 100)],
    serpOf: (k: { keyword: string }) => serps[k.keyword],
    siteDomain: SITE,
    competitors: [RIVAL],
  });

  it('adds the AI Overview share and citations beside the organic share, which stays as it was; a SERP summary says whom its overview cites', () => {
    const without = landscapeMetrics(input({ alpha: serp('alpha'), beta: serp('beta') }));
    const withOverviews = landscapeMetrics(
      input({
        alpha: serp('alpha', overview([SITE, `https://${SITE}/alpha`], [RIVAL, `https://${RIVAL}/alpha`])),
        beta: serp('beta', NONE),
      }),
    );
    const organic = (m: typeof without) =>
      m.sov.domains.map(({ domain, sov, keywords_ranked }) => ({ domain, sov, keywords_ranked }));
    expect(organic(withOverviews)).toEqual(organic(without));
    expect(without.sov.domains.find((d) => d.domain === SITE)).toMatchObject({ ai_sov: null, ai_cited: 0 });
    expect(withOverviews.sov.domains.find((d) => d.domain === SITE)).toMatchObject({ ai_sov: 0.375, ai_cited: 1 });
    expect(withOverviews.sov.domains.find((d) => d.domain === RIVAL)).toMatchObject({ ai_sov: 0.375, ai_cited: 1 });
    const alpha = withOverviews.keywords.find((k) => k.keyword === 'alpha');
    expect(alpha?.serp?.ai_overview).toEqual({
      shown: true,
      site_url: `https://${SITE}/alpha`,
      competitors_cited: [RIVAL],
    });
    expect(withOverviews.keywords.find((k) => k.keyword === 'beta')?.serp?.ai_overview).toEqual({
      shown: false,
      site_url: null,
      competitors_cited: [],
    });
    expect(without.keywords[0]?.serp).not.toHaveProperty('ai_overview');
  });
});

describe("the sandbox's AI Overviews", () => {
  const queue = new SandboxSerpQueue();
  const collected = async (keyword: string) => {
    const [posted] = await queue.post(
      [{ tag: keyword, keyword, locale: 'US/en', device: 'desktop', depth: 20 }],
      new Meter(),
    );
    const answer = await queue.collect(posted && 'id' in posted ? posted.id : '', 20);
    if (answer.status !== 'ready') throw new Error(`not ready: ${answer.status}`);
    return answer;
  };

  it('shows one on about half of the keywords, citing 3 to 8 of its top 10 results, the same every time', async () => {
    const keywords = Array.from({ length: 200 }, (_v, i) => `trail shoes ${i}`);
    const answers = await Promise.all(keywords.map(collected));
    const shown = answers.filter((a) => a.aiOverview.shown);
    expect(shown.length).toBeGreaterThan(70);
    expect(shown.length).toBeLessThan(130);
    for (const { items, aiOverview } of shown) {
      expect(aiOverview.references.length).toBeGreaterThanOrEqual(3);
      expect(aiOverview.references.length).toBeLessThanOrEqual(8);
      const top = items.filter((item) => item.position <= 10).map((item) => item.url);
      for (const reference of aiOverview.references) expect(top).toContain(reference.url);
    }
    expect(await Promise.all(keywords.slice(0, 20).map(collected))).toEqual(answers.slice(0, 20));
  });

  it("cites the site and its competitors on some check days, first, in the site's view only, the same every time", async () => {
    const context = (day: string) => ({
      siteDomain: SITE,
      competitors: [RIVAL],
      day,
      pages: [{ url: `https://${SITE}/articles/trail`, keywords: ['trail shoes 1'] }],
    });
    const keywords = Array.from({ length: 40 }, (_v, i) => `trail shoes ${i}`);
    const views = await Promise.all(
      keywords.map(async (keyword) => {
        const { aiOverview } = await collected(keyword);
        return {
          aiOverview,
          views: ['2031-06-02', '2031-06-03', '2031-06-04'].map((day) =>
            queue.citeTracked(aiOverview, keyword, 'US/en', context(day)),
          ),
          again: queue.citeTracked(aiOverview, keyword, 'US/en', context('2031-06-02')),
        };
      }),
    );
    const citing = (domain: string) =>
      views.flatMap(({ views: v }) => v).filter((o) => o.references.some((r) => r.domain === domain));
    expect(citing(SITE).length).toBeGreaterThan(0);
    expect(citing(RIVAL).length).toBeGreaterThan(0);
    for (const { aiOverview, views: v, again } of views) {
      expect(again).toEqual(v[0]);
      if (!aiOverview.shown) for (const view of v) expect(view).toEqual(aiOverview);
      expect(JSON.stringify(aiOverview)).not.toContain(SITE);
      for (const view of v) expect(view.references.length).toBeLessThanOrEqual(LIMITS.aiOverviewReferencesMax);
    }
    // A live view (no check day) is the same every time too, and a site without a domain is never cited.
    const shownOne = given(
      views.find((v) => v.aiOverview.shown),
      'a shown overview',
    ).aiOverview;
    const live = { siteDomain: SITE, competitors: [RIVAL] };
    expect(queue.citeTracked(shownOne, 'trail shoes 0', 'US/en', live)).toEqual(
      queue.citeTracked(shownOne, 'trail shoes 0', 'US/en', live),
    );
    expect(
      JSON.stringify(queue.citeTracked(shownOne, 'trail shoes 0', 'US/en', { siteDomain: null, competitors: [] })),
    ).toBe(JSON.stringify(shownOne));
    // The site's page for its keyword is the URL cited, when it is cited on a day the page ranks.
    const page = views[1]?.views.flatMap((o) => o.references).filter((r) => r.domain === SITE) ?? [];
    for (const reference of page) expect(reference.url).toMatch(/^https:\/\/(www\.)?shop\.example\//);
    expect(given(views[0], 'the first view').views).toHaveLength(3);
  });
});
