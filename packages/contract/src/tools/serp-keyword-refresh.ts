import * as z from 'zod/mini';
import { Keyword } from '../cm-tables';
import { LIMITS } from '../limits';
import { EstimateFields, withEstimate } from '../estimate';
import { ToolMeta } from './shared';
import { defineTool } from './declaration';

export const SerpKeywordRefreshInput = z.object({ keyword: Keyword, ...EstimateFields });
export type SerpKeywordRefreshInput = z.output<typeof SerpKeywordRefreshInput>;

export const SerpKeywordRefreshResult = z.object({
  ...ToolMeta,
  row: z.object({
    keyword: z.string(),
    locale: z.string(),
    fetched_at: z.string(),
    data_source: z.string(),
    items: z.array(z.object({ position: z.int(), domain: z.string(), url: z.string(), title: z.string() })),
  }),
  untracked_competitors: z
    .array(z.string())
    .check(z.meta({ description: `Top-${LIMITS.untrackedCompetitorPositions} domains neither tracked nor the site` })),
  quota: z.object({ limit: z.int(), used: z.int(), resets_at: z.string() }),
});

export const SERP_KEYWORD_REFRESH = defineTool({
  name: 'serp_keyword_refresh',
  title: 'Refresh one keyword SERP (daily quota)',
  description: `Force a fresh top-${LIMITS.serpDepth} Google organic pull (US/English) for one keyword. ${LIMITS.refreshesPerDay} per site per UTC day. Returns the stored SERP row and the top-${LIMITS.untrackedCompetitorPositions} domains that are neither tracked competitors nor the site.`,
  input: SerpKeywordRefreshInput,
  result: withEstimate(SerpKeywordRefreshResult),
  grants: { table: 'readWrite', sendsTo: ['budget-warning'], secrets: ['dataforseo'] },
});
