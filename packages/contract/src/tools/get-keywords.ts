import * as z from 'zod/mini';
import { RowId } from '../cm-tables';
import { LIMITS } from '../limits';
import { EstimateFields, withEstimate } from '../estimate';
import { KeywordRowSchema } from './keyword-row';
import { ToolMeta } from './shared';
import { defineTool } from './declaration';

export const GetKeywordsInput = z
  .object({
    seeds: z.optional(z.array(z.string()).check(z.minLength(1), z.maxLength(LIMITS.seedsMax))),
    topic_id: z
      .optional(RowId)
      .check(z.meta({ description: "Pull for the topic's keywords; seeds are attached to it" })),
    keyword_id: z
      .optional(RowId)
      .check(z.meta({ description: 'Refresh one cm_keywords row; locks the locale to that row' })),
    ...EstimateFields,
  })
  .check(
    z.refine((v) => v.seeds !== undefined || v.topic_id !== undefined || v.keyword_id !== undefined, {
      message: 'give seeds, topic_id or keyword_id',
    }),
  );
export type GetKeywordsInput = z.output<typeof GetKeywordsInput>;

export const GetKeywordsResult = z.object({
  ...ToolMeta,
  locale: z.string(),
  keywords: z.array(KeywordRowSchema),
  no_data: z.array(z.string()).check(z.meta({ description: 'Seeds the data has nothing for' })),
  rejected_seeds: z
    .array(z.object({ seed: z.string(), reason: z.string() }))
    .check(z.meta({ description: 'Seeds that are no keyword, with why' })),
  topic_id: z.nullable(z.int()),
  attached: z.int().check(z.meta({ description: 'Keywords newly attached to the topic' })),
});

export const GET_KEYWORDS = defineTool({
  name: 'get_keywords',
  title: 'Pull keyword metrics',
  description: `Pull fresh keyword metrics (volume, cpc_usd, competition, intent) for seeds, a topic or one keyword row, and upsert them into cm_keywords; with topic_id the keywords are attached to the topic. Locale: the keyword row's, else the site's, else WW/en. With topic_id or keyword_id a seed without data is stored as volume 0 and listed in no_data (checked: not pulled or paid for again for ${LIMITS.noDataRecheckDays} days).`,
  input: GetKeywordsInput,
  result: withEstimate(GetKeywordsResult),
  grants: { table: 'readWrite', sendsTo: ['budget-warning'], secrets: ['dataforseo'] },
});
