import * as z from 'zod/mini';
import { RecallInput } from '../research';
import { ResearchFindings, ToolMeta } from './shared';
import { defineTool } from './declaration';

export const RecallResult = z.object({
  ...ToolMeta,
  results: z.array(
    z.looseObject({
      ...ResearchFindings,
      mode: z.string(),
      query: z.string(),
      question: z.nullable(z.string()),
      page_id: z.nullable(z.int()),
      created_at: z.string(),
      matched_terms: z
        .array(z.string())
        .check(z.meta({ description: "The query's terms this research is indexed under: why it answers the query" })),
    }),
  ),
  empty: z.boolean(),
});

export const RECALL = defineTool({
  name: 'recall',
  title: "Recall the site's stored research",
  description:
    "The site's stored research that answers the query: research matching all its words (at least three quarters of a query of four or more; stopwords ignored), most matched first, each with its matched_terms. empty: true when none does.",
  input: RecallInput,
  result: RecallResult,
  grants: { table: 'read' },
});
