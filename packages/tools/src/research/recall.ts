import type { RecallInput } from '@cm/contract';
import { answeringResearch, researchTerms } from '@cm/core';
import { DATABASE, type ToolContext } from '../context';

/* recall: the site's stored research that answers a query, each result with the query terms it matched. */

export async function recall(ctx: ToolContext, input: RecallInput) {
  const terms = researchTerms(input.query);
  const hits = await ctx.store.research.findByTerms(ctx.siteId, terms, { mode: input.mode, page_id: input.page_id });
  const matches = answeringResearch(terms, hits, input.limit);
  const byId = await ctx.store.research.getMany(
    ctx.siteId,
    matches.map((match) => match.research_id),
  );
  const results = matches.flatMap((match) => {
    const research = byId.get(match.research_id);
    return research ? [{ ...research, matched_terms: match.matched_terms }] : [];
  });
  return { data_source: DATABASE, results, empty: results.length === 0 };
}
