import * as z from 'zod/mini';
import { LIMITS } from './limits';

/*
 * Google's AI Overview as a rank check records it (docs/api/research-tools.md#ai-overviews): whether
 * the SERP showed one, and the pages it cites.
 */

/** A page an AI Overview cites. */
export const AiOverviewReference = z.object({ domain: z.string(), url: z.string() });
export type AiOverviewReference = z.infer<typeof AiOverviewReference>;

/**
 * A checked SERP's AI Overview: `shown` false when it had none; else its references, in Google's order,
 * each URL once, at most LIMITS.aiOverviewReferencesMax. `references_loaded` false: Google loaded the
 * overview after the page and the check did not load it (DataForSEO's `asynchronous_ai_overview`
 * without `load_async_ai_overview`), so it was shown and its citations are not known.
 */
export const AiOverview = z.object({
  shown: z.boolean(),
  references: z.array(AiOverviewReference).check(z.maxLength(LIMITS.aiOverviewReferencesMax)),
  references_loaded: z.boolean(),
});
export type AiOverview = z.infer<typeof AiOverview>;

/** A value per day of the history's `days` (null: no check that day recorded an AI Overview's presence). */
const PerDay = <T extends z.ZodMiniType>(value: T) => z.array(z.nullable(value));

/**
 * serp_landscape history's `ai_overviews`, beside the organic positions: per keyword and day whether
 * an AI Overview was shown and the URL of the site's and each tracked competitor's page it cited; per
 * domain and day the keywords whose overview cites it, and its AI Overview share of voice.
 */
export const AiOverviewHistory = z.object({
  shown: PerDay(z.int()),
  keywords: z.array(
    z.object({
      keyword: z.string(),
      locale: z.string(),
      shown: PerDay(z.boolean()),
      cited: z.record(z.string(), PerDay(z.string())),
    }),
  ),
  domains: z.array(
    z.object({
      domain: z.string(),
      is_site: z.boolean(),
      is_competitor: z.boolean(),
      color: z.optional(z.string()),
      cited: PerDay(z.int()),
      sov: PerDay(z.number()),
    }),
  ),
});
export type AiOverviewHistory = z.infer<typeof AiOverviewHistory>;
