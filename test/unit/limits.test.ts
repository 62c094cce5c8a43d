import * as path from 'node:path';
import { LIMITS, SERVICE_LIMITS, SPEC_LIMITS, toolListing } from '@cm/contract';
import { given } from '../helpers/client';

/* The limits live once, in contract/src/limits.ts; what callers read of them is built from there. */

type Listing = ReturnType<typeof toolListing>;
type Schema = { properties: Record<string, Record<string, unknown>> };

const toolOf = (listing: Listing, name: string) => {
  const tool = listing.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return { description: tool.description, properties: (tool.input_schema as Schema).properties };
};

describe('LIMITS', () => {
  it("holds the spec's numbers (§4.3, §7, §8)", () => {
    expect(SPEC_LIMITS).toEqual({
      concurrentResearch: 10,
      researchRetryAfterMs: 30_000,
      researchSecondsMin: 30,
      researchSecondsMax: 60,
      analyzeSecondsMin: 45,
      analyzeSecondsMax: 60,
      keywordSeedsMin: 3,
      keywordSeedsMax: 5,
      keywordSeedWordsMin: 1,
      keywordSeedWordsMax: 3,
      analyzeKeywords: 5,
      topicListDefault: 10,
      keywordIdeas: 100,
      verdictMinVolumeCoverage: 0.5,
      refreshesPerDay: 20,
      serpDepth: 20,
      untrackedCompetitorPositions: 10,
      trendMonthsDefault: 18,
      trendMonthsMax: 36,
      linksDefault: 100,
      linksMax: 1000,
      authorityMin: 0,
      authorityMax: 1000,
      activeCompetitors: 10,
    });
  });

  it("is the spec's limits and the service's, none of them both", () => {
    expect(LIMITS).toEqual({ ...SPEC_LIMITS, ...SERVICE_LIMITS });
    expect(Object.keys(SPEC_LIMITS).filter((k) => k in SERVICE_LIMITS)).toEqual([]);
  });
});

/** What the tool listing shows of the limits, checked against whatever LIMITS has. */
function expectListingCarries(listing: Listing, limits: typeof LIMITS) {
  const research = toolOf(listing, 'research');
  expect(research.description).toContain(`At most ${limits.concurrentResearch} web, reddit and url calls run at once`);
  expect(research.description).toContain(`at most ${limits.researchSitePlaces} of them a site's`);
  expect(research.description).toContain(`retry after ${limits.researchRetryAfterMs / 1000} s`);
  expect(research.description).toContain(`wait_ms (max ${limits.waitMsMax})`);
  expect(research.description).toContain(
    `a queued job of ${limits.researchSecondsMin} to ${limits.researchSecondsMax} s`,
  );
  const seeds = `${limits.keywordSeedsMin} to ${limits.keywordSeedsMax} distinct comma-separated seeds of ${limits.keywordSeedWordsMin} to ${limits.keywordSeedWordsMax} words`;
  expect(research.description).toContain(`mode keywords: ${seeds}`);
  expect(given(research.properties.seed, 'the seed').description).toContain(`keywords: ${seeds};`);
  expect(research.properties.wait_ms).toMatchObject({ maximum: limits.waitMsMax, default: limits.waitMsMax });

  const landscape = toolOf(listing, 'serp_landscape');
  expect(landscape.description).toContain(
    `verdict suppressed below ${limits.verdictMinVolumeCoverage * 100}% volume coverage`,
  );
  expect(landscape.description).toContain(`up to ${limits.keywordIdeas} keyword ideas`);
  expect(landscape.description).toContain(`topic top ${limits.topicListDefault} by score`);
  // All three depths, analyze with its cap and how it waits.
  for (const depth of ['depth metrics', 'depth list', 'depth analyze']) expect(landscape.description).toContain(depth);
  expect(landscape.description).toContain(`for at most ${limits.analyzeKeywords} keywords in all`);
  expect(landscape.description).toContain(`the first ${limits.analyzeKeywords} keyword_ids`);
  expect(landscape.description).toContain(`about ${limits.analyzeSecondsMin} to ${limits.analyzeSecondsMax} s`);
  expect(landscape.description).toContain(
    `waits up to wait_ms (max ${limits.waitMsMax}) and answers research.status partial`,
  );
  expect(given(landscape.properties.ideas, 'the ideas').description).toBe(
    `metrics only: also pull up to ${limits.keywordIdeas} keyword ideas`,
  );
  expect(landscape.properties.limit).toMatchObject({
    maximum: limits.listKeywordsMax,
    description: `topic list/analyze: top N by score (default ${limits.topicListDefault}, analyze ${limits.analyzeKeywords})`,
  });
  expect(landscape.properties.keyword_ids).toMatchObject({ maxItems: limits.listKeywordsMax });

  const refresh = toolOf(listing, 'serp_keyword_refresh');
  expect(refresh.description).toContain(`top-${limits.serpDepth} Google organic pull`);
  expect(refresh.description).toContain(`${limits.refreshesPerDay} per site per UTC day`);
  expect(refresh.description).toContain(`the top-${limits.untrackedCompetitorPositions} domains`);

  const backlinks = toolOf(listing, 'serp_backlinks');
  expect(backlinks.properties.trend_months).toMatchObject({
    anyOf: [expect.objectContaining({ minimum: 1, maximum: limits.trendMonthsMax }), { type: 'null' }],
    default: limits.trendMonthsDefault,
  });
  expect(backlinks.properties.limit).toMatchObject({
    anyOf: [expect.objectContaining({ maximum: limits.linksMax }), { type: 'null' }],
    description: `depth links: linking pages (default ${limits.linksDefault})`,
  });
  expect(backlinks.description).toContain(
    `trend_months (default ${limits.trendMonthsDefault}, max ${limits.trendMonthsMax})`,
  );
  expect(backlinks.description).toContain(
    `by authority (${limits.authorityMin}–${limits.authorityMax}), limit default ${limits.linksDefault}, max ${limits.linksMax}`,
  );

  expect(toolOf(listing, 'add_competitor').description).toContain(
    `At most ${limits.activeCompetitors} active per site`,
  );
  expect(toolOf(listing, 'db_delete').description).toContain(`under the cap of ${limits.activeCompetitors}`);

  const tracking = toolOf(listing, 'track_rankings');
  expect(tracking.description).toContain(
    `top max_keywords by score, default ${limits.trackKeywordsDefault}, max ${limits.trackKeywordsMax}`,
  );
  expect(tracking.description).toContain(
    `at depth (default top ${limits.rankDepthDefault}, max ${limits.rankDepthMax})`,
  );
  expect(tracking.properties.max_keywords).toMatchObject({ maximum: limits.trackKeywordsMax });
  expect(tracking.properties.depth).toMatchObject({
    minimum: limits.rankDepthStep,
    maximum: limits.rankDepthMax,
    multipleOf: limits.rankDepthStep,
  });
  expect(landscape.properties.history_days).toMatchObject({ maximum: limits.historyDaysMax });

  expect(toolOf(listing, 'db_select').properties.limit).toMatchObject({
    maximum: limits.dbSelectMax,
    default: limits.dbSelectDefault,
  });
  expect(toolOf(listing, 'get_keywords').properties.seeds).toMatchObject({ maxItems: limits.seedsMax });
  expect(toolOf(listing, 'get_keywords').description).toContain(`for ${limits.noDataRecheckDays} days`);
  expect(toolOf(listing, 'recall').properties.limit).toMatchObject({
    maximum: limits.recallMax,
    default: limits.recallDefault,
  });
}

describe('the tool listing', () => {
  it('shows the limits in the descriptions and JSON Schemas', () => {
    expectListingCarries(toolListing(), LIMITS);
  });

  it('follows a changed limit everywhere: descriptions, schemas, checks and core rules', () => {
    const changed = {
      ...LIMITS,
      concurrentResearch: 7,
      researchSitePlaces: 3,
      researchRetryAfterMs: 45_000,
      researchSecondsMin: 20,
      researchSecondsMax: 90,
      analyzeSecondsMin: 40,
      analyzeSecondsMax: 75,
      keywordSeedsMin: 2,
      keywordSeedsMax: 6,
      keywordSeedWordsMin: 1,
      keywordSeedWordsMax: 4,
      analyzeKeywords: 4,
      topicListDefault: 8,
      keywordIdeas: 80,
      verdictMinVolumeCoverage: 0.6,
      refreshesPerDay: 25,
      serpDepth: 30,
      untrackedCompetitorPositions: 3,
      trendMonthsDefault: 12,
      trendMonthsMax: 48,
      linksDefault: 150,
      linksMax: 900,
      authorityMax: 100,
      activeCompetitors: 12,
      waitMsMax: 20_000,
      listKeywordsMax: 60,
      seedsMax: 150,
      dbSelectDefault: 40,
      dbSelectMax: 120,
      recallDefault: 7,
      recallMax: 30,
      serpTopDomains: 4,
      trackKeywordsDefault: 25,
      trackKeywordsMax: 300,
      rankDepthDefault: 30,
      rankDepthMax: 50,
      rankDepthStep: 5,
      historyDaysMax: 180,
      noDataRecheckDays: 45,
    } as unknown as typeof LIMITS;
    const limitsModule = path.resolve(__dirname, '../../packages/contract/src/limits.ts');
    jest.isolateModules(() => {
      jest.doMock(limitsModule, () => ({ LIMITS: changed, SPEC_LIMITS: {}, SERVICE_LIMITS: {} }));
      const contract = require('@cm/contract') as typeof import('@cm/contract');
      const core = require('@cm/core') as typeof import('@cm/core');
      expect(contract.LIMITS).toBe(changed);
      expectListingCarries(contract.toolListing(), changed);

      // The checks: keywords mode's seeds, trend_months.
      expect(contract.ResearchInput.safeParse({ mode: 'keywords', seed: 'a, b' }).success).toBe(true);
      expect(contract.ResearchInput.safeParse({ mode: 'keywords', seed: 'a b c d, e' }).success).toBe(true);
      const seedError = contract.ResearchInput.safeParse({ mode: 'keywords', seed: 'a' }).error?.issues[0]?.message;
      expect(seedError).toBe('keywords mode takes 2 to 6 distinct comma-separated seeds of 1 to 4 words each');
      // analyze takes a larger limit and researches at most analyzeKeywords of it (the workflow caps it).
      expect(contract.SerpLandscapeInput.safeParse({ topic_id: 1, depth: 'analyze', limit: 5 }).success).toBe(true);
      expect(contract.SerpBacklinksInput.parse({}).trend_months).toBe(12);
      expect(contract.SerpBacklinksInput.safeParse({ trend_months: 48 }).success).toBe(true);
      expect(contract.SerpBacklinksInput.safeParse({ trend_months: 49 }).success).toBe(false);
      expect(contract.SerpBacklinksInput.parse({ trend_months: '48.5' }).trend_months).toBe(48);
      expect(contract.TrackRankingsInput.safeParse({ depth: 45 }).success).toBe(true);
      expect(contract.TrackRankingsInput.safeParse({ depth: 55 }).success).toBe(false);
      expect(contract.SerpLandscapeInput.safeParse({ keyword: 'a', history_days: 181 }).success).toBe(false);

      // The core rules: the verdict threshold and the untracked competitors' positions.
      expect(core.VERDICT_MIN_VOLUME_COVERAGE).toBe(0.6);
      const items = ['a.org', 'b.org', 'c.org', 'd.org'].map((domain, i) => ({
        position: i + 1,
        domain,
        url: `https://${domain}/`,
        title: domain,
      }));
      expect(core.untrackedCompetitors(items, null, [])).toEqual(['a.org', 'b.org', 'c.org']);
    });
  });
});
