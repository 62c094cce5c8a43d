import type { RecallInput } from '@cm/contract';
import { researchTerms } from '@cm/core';
import { DATABASE, type ToolContext } from '../context';

/* recall: the site's stored research, found by the words of a query. */

export async function recall(ctx: ToolContext, input: RecallInput) {
  const terms = researchTerms(input.query);
  const results = terms.length
    ? await ctx.store.research.recall(ctx.siteId, terms, {
        mode: input.mode,
        page_id: input.page_id,
        limit: input.limit,
      })
    : [];
  return { data_source: DATABASE, results, empty: results.length === 0 };
}
