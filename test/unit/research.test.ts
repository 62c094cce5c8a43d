import {
  AddCompetitorInput,
  LIMITS,
  ResearchInput,
  SerpBacklinksInput,
  TABLE_FIELDS,
  keywordSeeds,
  normalizeKeyword as contractNormalizeKeyword,
  type SerpRow,
} from '@cm/contract';
import {
  answeringResearch,
  checkedWithoutData,
  ctrAt,
  keywordLocale,
  keywordScore,
  landscapeMetrics,
  nextUtcMidnight,
  normalizeDomain,
  normalizeKeyword,
  normalizedResearchQuery,
  recallThreshold,
  researchTerms,
  topByScore,
  untrackedCompetitors,
  utcDay,
  type ScopeKeyword,
} from '@cm/core';
import { Meter, SandboxKeywordData, sandboxHasNoData } from '@cm/providers';
import { given } from '../helpers/client';

describe('keywords', () => {
  it('normalizes keywords for storage and matching', () => {
    expect(normalizeKeyword('  Running\tSHOES  for  Women ')).toBe('running shoes for women');
  });

  it("has one normalization rule, the contract's, which core and keywords mode's seeds both use", () => {
    expect(normalizeKeyword).toBe(contractNormalizeKeyword);
  });

  it('scores volume × (1 − competition) × intent weight, 0 without volume', () => {
    expect(keywordScore({ volume: 1000, competition: 0.25, intent: 'transactional' })).toBe(900);
    expect(keywordScore({ volume: 1000, competition: 0.25, intent: 'commercial' })).toBe(825);
    expect(keywordScore({ volume: 1000, competition: 0.25, intent: 'informational' })).toBe(750);
    expect(keywordScore({ volume: 1000, competition: 0.25, intent: 'navigational' })).toBe(375);
    expect(keywordScore({ volume: 1000, competition: null, intent: null })).toBe(500);
    expect(keywordScore({ volume: 0, competition: 0, intent: 'transactional' })).toBe(0);
    expect(keywordScore({ volume: null, competition: 0, intent: null })).toBe(0);
  });

  it('takes the top N by score, ties in their order', () => {
    const rows = [
      { id: 1, volume: 100, competition: 0, intent: null },
      { id: 2, volume: 300, competition: 0, intent: null },
      { id: 3, volume: 100, competition: 0, intent: null },
      { id: 4, volume: null, competition: 0, intent: null },
    ];
    expect(topByScore(rows, 3).map((r) => r.id)).toEqual([2, 1, 3]);
  });

  it("applies locale precedence: the keyword row's, else the site's, else WW/en", () => {
    expect(keywordLocale('GB/en', 'US/en')).toBe('GB/en');
    expect(keywordLocale(undefined, 'US/en')).toBe('US/en');
    expect(keywordLocale(null, null)).toBe('WW/en');
  });

  it('takes a row checked with no data as checked until its check is noDataRecheckDays old', () => {
    const now = new Date('2026-03-31T12:00:00Z');
    const ago = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
    const empty = { volume: 0, cpc_usd: null, competition: null, intent: null, checked_at: ago(1) };
    expect(checkedWithoutData(empty, now)).toBe(true);
    expect(checkedWithoutData({ ...empty, checked_at: ago(LIMITS.noDataRecheckDays - 0.001) }, now)).toBe(true);
    expect(checkedWithoutData({ ...empty, checked_at: ago(LIMITS.noDataRecheckDays) }, now)).toBe(false);
    // Never checked, or checked with data (a volume, or any other figure): pulled.
    expect(checkedWithoutData({ ...empty, checked_at: null }, now)).toBe(false);
    expect(checkedWithoutData({ ...empty, volume: null }, now)).toBe(false);
    expect(checkedWithoutData({ ...empty, volume: 10 }, now)).toBe(false);
    expect(checkedWithoutData({ ...empty, cpc_usd: 0.4 }, now)).toBe(false);
    expect(checkedWithoutData({ ...empty, competition: 0.1 }, now)).toBe(false);
    expect(checkedWithoutData({ ...empty, intent: 'commercial' }, now)).toBe(false);
  });
});

describe('recall matching', () => {
  const stored = [
    { research_id: 'cleaning', terms: ['shoes', 'trail'] },
    { research_id: 'beginners', terms: ['shoes', 'running', 'trail'] },
  ];

  it('needs every term of a query of up to three, and three quarters of a longer one', () => {
    expect([1, 2, 3, 4, 5, 6, 8, 24].map(recallThreshold)).toEqual([1, 2, 3, 3, 4, 5, 6, 18]);
  });

  it('answers nothing for a query that shares one common word with stored research', () => {
    const query = researchTerms('zeppelin mooring masts shoes');
    expect(query).toEqual(['zeppelin', 'mooring', 'masts', 'shoes']);
    expect(answeringResearch(query, stored, 10)).toEqual([]);
  });

  it('gives research matching enough terms, most matched first, the given order among equals, with its matched terms in query order', () => {
    expect(answeringResearch(researchTerms('The trail running shoes'), stored, 10)).toEqual([
      { research_id: 'beginners', matched_terms: ['trail', 'running', 'shoes'] },
    ]);
    expect(answeringResearch(researchTerms('trail shoes'), stored, 10)).toEqual([
      { research_id: 'cleaning', matched_terms: ['trail', 'shoes'] },
      { research_id: 'beginners', matched_terms: ['trail', 'shoes'] },
    ]);
    expect(answeringResearch(researchTerms('shoes for trail running novices'), stored, 10)).toEqual([
      { research_id: 'beginners', matched_terms: ['shoes', 'trail', 'running'] },
    ]);
  });

  it('keeps at most limit results, and none for a query of no terms', () => {
    expect(answeringResearch(['trail', 'shoes'], stored, 1)).toEqual([
      { research_id: 'cleaning', matched_terms: ['trail', 'shoes'] },
    ]);
    expect(answeringResearch([], stored, 10)).toEqual([]);
  });
});

describe('research identity', () => {
  it('reads web and reddit queries and questions trimmed, lower case, single spaces', () => {
    expect(normalizedResearchQuery('web', '  Trail   SHOES ', null)).toBe('web\ntrail shoes\n');
    expect(normalizedResearchQuery('reddit', 'trail shoes')).not.toBe(normalizedResearchQuery('web', 'trail shoes'));
  });

  it('keeps a URL one page: scheme and host in any case, the path and query as given, no fragment', () => {
    const page = normalizedResearchQuery('url', 'https://Example.COM/Guides/Shoes?Size=42', 'Which  Size?');
    expect(page).toBe('url\nhttps://example.com/Guides/Shoes?Size=42\nwhich size?');
    expect(normalizedResearchQuery('url', ' HTTPS://example.com/Guides/Shoes?Size=42#fit ', 'which size?')).toBe(page);
    expect(normalizedResearchQuery('url', 'https://example.com/guides/shoes?Size=42', 'which size?')).not.toBe(page);
    // Text that is no URL (url mode refuses it before any research) is only trimmed.
    expect(normalizedResearchQuery('url', ' not a URL ', null)).toBe('url\nnot a URL\n');
  });
});

describe('domains', () => {
  it('strips scheme, credentials, port, path, query and a leading www., lower-cased', () => {
    expect(normalizeDomain('https://user:pw@WWW.Example.COM:8443/path?q=1#top')).toBe('example.com');
    expect(normalizeDomain('blog.example.co.uk/')).toBe('blog.example.co.uk');
    expect(normalizeDomain('example.com.')).toBe('example.com');
  });

  it('refuses what is no hostname', () => {
    for (const input of ['', 'localhost', 'not a domain', 'http://', '-bad-.com', 'exa_mple.com'])
      expect(normalizeDomain(input)).toBeNull();
  });
});

describe('daily quota periods', () => {
  it('counts by UTC day and resets at the next UTC midnight', () => {
    const late = new Date('2026-11-21T23:59:59.999Z');
    expect(utcDay(late)).toBe('2026-11-21');
    expect(nextUtcMidnight(late)).toBe('2026-11-22T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2026-12-31T00:00:00.000Z'))).toBe('2027-01-01T00:00:00.000Z');
  });
});

const keyword = (name: string, volume: number | null): ScopeKeyword => ({
  keyword: name,
  keyword_id: null,
  is_idea: false,
  locale: 'US/en',
  volume,
  cpc_usd: 1,
  competition: 0.5,
  intent: 'commercial',
});

const serp = (name: string, domains: string[]): SerpRow => ({
  keyword: name,
  locale: 'US/en',
  fetched_at: '2026-11-21T00:00:00.000Z',
  data_source: 'sandbox',
  items: domains.map((domain, i) => ({ position: i + 1, domain, url: `https://${domain}/`, title: domain })),
});

const landscape = (keywords: ScopeKeyword[], serps: SerpRow[], competitors = ['rival.com']) =>
  landscapeMetrics({
    keywords,
    serpOf: (k) => serps.find((row) => row.locale === k.locale && row.keyword === k.keyword),
    siteDomain: 'site.com',
    competitors,
  });

describe('share of voice', () => {
  it('weighs each keyword by volume × CTR of the best position, over keywords with volume and SERP data', () => {
    const out = landscape(
      [keyword('a', 1000), keyword('b', 3000), keyword('c', null)],
      [
        serp('a', ['www.site.com', 'rival.com']),
        serp('b', ['rival.com', 'other.org', 'blog.site.com']),
        serp('c', ['site.com']),
      ],
    );
    const sov = Object.fromEntries(out.sov.domains.map((d) => [d.domain, d.sov]));
    expect(sov['site.com']).toBeCloseTo((1000 * ctrAt(1) + 3000 * ctrAt(3)) / 4000, 4);
    expect(sov['rival.com']).toBeCloseTo((1000 * ctrAt(2) + 3000 * ctrAt(1)) / 4000, 4);
    expect(sov['other.org']).toBeCloseTo((3000 * ctrAt(2)) / 4000, 4);
    expect(out.sov.domains.find((d) => d.domain === 'site.com')).toMatchObject({ is_site: true, keywords_ranked: 2 });
    expect(out.sov.domains.find((d) => d.domain === 'rival.com')).toMatchObject({ is_competitor: true });
    expect(out.coverage).toEqual({ keywords: 3, with_volume: 2, with_serp: 3, volume_pct: 66.7, serp_pct: 100 });
    expect(out.sov.verdict).toBe('trails');
    expect(out.keywords.map((k) => k.keyword)).toEqual(['b', 'a', 'c']); // best score first
    expect(given(out.keywords[1], 'the out.keywords[1]').serp).toMatchObject({
      site_position: 1,
      competitor_positions: [{ domain: 'rival.com', position: 2 }],
    });
  });

  it('says leads, contends or trails against the best competitor', () => {
    const two = (site: string[], rival: string[]) => [serp('a', site), serp('b', rival)];
    expect(
      landscape([keyword('a', 100), keyword('b', 100)], two(['site.com'], ['site.com', 'rival.com'])).sov.verdict,
    ).toBe('leads');
    expect(landscape([keyword('a', 100), keyword('b', 100)], two(['site.com'], ['rival.com'])).sov.verdict).toBe(
      'contends',
    );
    expect(
      landscape([keyword('a', 100), keyword('b', 100)], two(['rival.com', 'site.com'], ['rival.com'])).sov.verdict,
    ).toBe('trails');
  });

  it('withholds the verdict below 50% volume coverage, and gives one at exactly 50%', () => {
    const serps = [serp('a', ['site.com']), serp('b', ['site.com'])];
    const below = landscape([keyword('a', 100), keyword('b', null), keyword('c', 0)], serps);
    expect(below.sov.verdict).toBeNull();
    expect(below.sov.verdict_reason).toBe('volume coverage is 33.3%, below the 50% a verdict needs');
    const half = landscape([keyword('a', 100), keyword('b', null)], serps);
    expect(half.sov.verdict).toBe('leads');
  });

  it('without tracked competitors compares with the strongest other domain', () => {
    const out = landscape([keyword('a', 100)], [serp('a', ['big.org', 'site.com'])], []);
    expect(out.sov.verdict).toBe('trails');
    expect(out.sov.verdict_reason).toContain('big.org');
  });

  it('lists top-10 domains that are neither the site nor tracked as untracked competitors', () => {
    const row = serp('a', [
      'www.site.com',
      'rival.com',
      'a.org',
      'www.b.org',
      'a.org',
      ...Array.from({ length: 6 }, (_v, i) => `filler${i}.com`),
    ]);
    expect(untrackedCompetitors(row.items, 'site.com', ['rival.com'])).toEqual([
      'a.org',
      'b.org',
      'filler0.com',
      'filler1.com',
      'filler2.com',
      'filler3.com',
      'filler4.com',
    ]);
  });
});

describe('sandbox provider', () => {
  const sandbox = new SandboxKeywordData();

  it('derives the same numbers from the same keyword and locale, and others from another locale', async () => {
    const meter = new Meter();
    const a = await sandbox.keywordMetrics(['running shoes'], 'US/en', meter);
    const b = await sandbox.keywordMetrics(['running shoes'], 'US/en', meter);
    const gb = await sandbox.keywordMetrics(['running shoes'], 'GB/en', meter);
    expect(a.get('running shoes')).toEqual(b.get('running shoes'));
    expect(gb.get('running shoes')).not.toEqual(a.get('running shoes'));
    expect(meter.calls).toEqual(Array(3).fill({ provider: 'sandbox', endpoint: 'keyword_metrics', cost_usd: 0 }));
  });

  it('keeps figures in realistic ranges and reads intent from the words', async () => {
    const words = [
      'shoes',
      'buy running shoes',
      'best trail shoes',
      'how to lace shoes',
      'nike login',
      'marathon training plan',
    ];
    const metrics = await sandbox.keywordMetrics(words, 'US/en', new Meter());
    for (const m of metrics.values()) {
      expect(m.volume).toBeGreaterThanOrEqual(10);
      expect(m.volume).toBeLessThanOrEqual(200_000);
      expect(m.cpc_usd).toBeGreaterThanOrEqual(0.1);
      expect(m.competition).toBeGreaterThanOrEqual(0);
      expect(m.competition).toBeLessThanOrEqual(1);
    }
    expect(given(metrics.get('buy running shoes'), 'the entry').intent).toBe('transactional');
    expect(given(metrics.get('best trail shoes'), 'the entry').intent).toBe('commercial');
    expect(given(metrics.get('how to lace shoes'), 'the entry').intent).toBe('informational');
    expect(given(metrics.get('nike login'), 'the entry').intent).toBe('navigational');
  });

  it('gives shorter phrases more searches than longer ones', async () => {
    const words = ['shoes', 'boots', 'socks', 'laces', 'soles', 'insoles'];
    const mean = async (phrases: string[]) => {
      const metrics = await sandbox.keywordMetrics(phrases, 'US/en', new Meter());
      return [...metrics.values()].reduce((sum, m) => sum + given(m.volume, 'the volume'), 0) / metrics.size;
    };
    const head = await mean(words);
    const tail = await mean(words.map((w) => `waterproof ${w} for winter hiking`));
    expect(head).toBeGreaterThan(tail * 10);
  });

  it('has no data for long-tail phrases: more than six words, or a word over 15 letters', async () => {
    expect(sandboxHasNoData('one two three four five six seven')).toBe(true);
    expect(sandboxHasNoData('supercalifragilistic shoes')).toBe(true);
    expect(sandboxHasNoData('running shoes for flat feet')).toBe(false);
    const metrics = await sandbox.keywordMetrics(['supercalifragilistic shoes', 'shoes'], 'US/en', new Meter());
    expect([...metrics.keys()]).toEqual(['shoes']);
  });

  it('builds public top-20 SERPs of plausible domains, which place a site and its competitors on some keywords as it sees them', async () => {
    const context = { siteDomain: 'site.com', competitors: ['rival.com'] };
    const keywords = Array.from({ length: 40 }, (_v, i) => `running shoes ${i}`);
    const publicSerps = await Promise.all(keywords.map((k) => sandbox.serpOrganic(k, 'US/en', 20, new Meter())));
    const serps = publicSerps.map((items, i) =>
      sandbox.placeTracked(items, given(keywords[i], 'the keywords[i]'), 'US/en', context),
    );
    for (const [i, items] of serps.entries()) {
      expect(items.map((item) => item.position)).toEqual(Array.from({ length: 20 }, (_v, n) => n + 1));
      expect(new Set(items.map((item) => item.domain)).size).toBe(20);
      // The public SERP names no site; the site's view keeps the public results in their order around its own.
      expect(given(publicSerps[i], 'the publicSerps[i]').map((item) => item.domain)).not.toEqual(
        expect.arrayContaining(['site.com']),
      );
      expect(given(publicSerps[i], 'the publicSerps[i]').map((item) => item.domain)).not.toEqual(
        expect.arrayContaining(['rival.com']),
      );
      const untracked = items.filter((item) => item.domain !== 'site.com' && item.domain !== 'rival.com');
      expect(untracked.map(({ domain, url, title }) => ({ domain, url, title }))).toEqual(
        given(publicSerps[i], 'the publicSerps[i]')
          .slice(0, untracked.length)
          .map(({ domain, url, title }) => ({ domain, url, title })),
      );
    }
    const ranks = (domain: string) => serps.filter((items) => items.some((i) => i.domain === domain)).length;
    expect(ranks('site.com')).toBeGreaterThan(10);
    expect(ranks('site.com')).toBeLessThan(40);
    expect(ranks('rival.com')).toBeGreaterThan(5);
    expect(ranks('rival.com')).toBeLessThan(40);
    expect(await sandbox.serpOrganic('running shoes 1', 'US/en', 20, new Meter())).toEqual(publicSerps[1]);
  });

  it("places each site in the same public SERP apart: one site's domain and competitors never show in another's view", async () => {
    const keyword = 'running shoes 3';
    const publicSerp = await sandbox.serpOrganic(keyword, 'US/en', 20, new Meter());
    const a = sandbox.placeTracked(publicSerp, keyword, 'US/en', { siteDomain: 'a.com', competitors: ['rival-a.com'] });
    const b = sandbox.placeTracked(publicSerp, keyword, 'US/en', { siteDomain: 'b.com', competitors: [] });
    const domains = (items: readonly { domain: string }[]) => items.map((item) => item.domain);
    expect(domains(a)).toEqual(expect.arrayContaining(['a.com']));
    expect(domains(b)).not.toEqual(expect.arrayContaining(['a.com']));
    expect(domains(b)).not.toEqual(expect.arrayContaining(['rival-a.com']));
    expect(domains(a)).not.toEqual(expect.arrayContaining(['b.com']));
    // A tracked domain the public SERP names already keeps its public place, once.
    const known = given(publicSerp[4], 'the publicSerp[4]');
    const tracking = sandbox.placeTracked(publicSerp, keyword, 'US/en', {
      siteDomain: null,
      competitors: [known.domain],
    });
    expect(tracking).toEqual(publicSerp);
  });

  it('suggests up to the limit of ideas, highest volume first, none of them a seed', async () => {
    const ideas = await sandbox.keywordIdeas(['running shoes', 'trail shoes'], 'US/en', 100, new Meter());
    expect(ideas.length).toBeGreaterThan(20);
    expect(ideas.length).toBeLessThanOrEqual(100);
    expect(ideas.map((i) => i.keyword)).not.toContain('running shoes');
    const volumes = ideas.map((i) => given(i.volume, 'the volume'));
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(await sandbox.keywordIdeas(['running shoes'], 'US/en', 5, new Meter())).toHaveLength(5);
  });
});

describe('tolerant tool parameters', () => {
  it('reads trend_months and limit of serp_backlinks as agents send them: fractions rounded down, numeric strings', () => {
    const parse = (input: Record<string, unknown>) => SerpBacklinksInput.safeParse(input);
    expect(parse({ trend_months: 12.7 }).data?.trend_months).toBe(12);
    expect(parse({ trend_months: '36' }).data?.trend_months).toBe(36);
    expect(parse({ trend_months: ' 7.99 ' }).data?.trend_months).toBe(7);
    // Left out or null: the default applies in the tool (18 months), as for every other optional field.
    expect(parse({}).data?.trend_months).toBe(18);
    expect(parse({ trend_months: null }).data?.trend_months).toBeNull();
    expect(parse({ depth: 'links', scope: 'site', limit: null }).success).toBe(true);
    expect(parse({ depth: 'links', scope: 'site', limit: '250' }).data?.limit).toBe(250);
    expect(parse({ depth: 'links', scope: 'site', limit: 999.9 }).data?.limit).toBe(999);
    for (const trend_months of [0.5, '0', 37, '36.0001e1', 'abc', '', '0x10', false, [12]]) {
      expect([trend_months, parse({ trend_months }).success]).toEqual([trend_months, false]);
    }
  });

  it('takes a #rgb color as #rrggbb, lower case', () => {
    expect(AddCompetitorInput.parse({ domain: 'a.com', color: '#F0a' }).color).toBe('#ff00aa');
    expect(AddCompetitorInput.parse({ domain: 'a.com', color: '#A1B2C3' }).color).toBe('#a1b2c3');
    expect(TABLE_FIELDS.cm_competitors.parse({ domain: 'a.com', color: '#abc' }).color).toBe('#aabbcc');
    for (const color of ['#ab', '#abcd', 'abc', '#ggg', 'red'])
      expect([color, AddCompetitorInput.safeParse({ domain: 'a.com', color }).success]).toEqual([color, false]);
  });

  it('counts keywords-mode seeds distinct once normalized', () => {
    expect(keywordSeeds(' Trail  Shoes, trail shoes,BOOTS ')).toEqual(['trail shoes', 'boots']);
    expect(ResearchInput.safeParse({ mode: 'keywords', seed: 'a, a, a' }).success).toBe(false);
    expect(ResearchInput.safeParse({ mode: 'keywords', seed: 'a, A, b, c' }).success).toBe(true);
  });
});
