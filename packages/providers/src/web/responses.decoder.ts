import * as z from 'zod/mini';

/* What Tavily and the model on Bedrock answer, decoded where it arrives. */

/** Tavily's search answer; a search not reporting its `usage` is priced at Tavily's list price. */
export const SearchResponse = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string(),
      url: z.string(),
      content: z.string(),
      raw_content: z.nullish(z.string()),
    }),
  ),
  usage: z.optional(z.looseObject({ credits: z.number() })),
});

/** Tavily's error detail, `{ detail: { error } }`. */
export const SearchError = z.looseObject({ detail: z.looseObject({ error: z.string() }) });

/** One finding as the model recorded it. */
export const FindingItem = z.object({
  text: z.string().check(z.trim(), z.minLength(1)),
  source_ids: z.array(z.string()),
});
/** The model's `record_findings` call, read leniently: a malformed finding is dropped, not the whole answer. */
export const ToolOutput = z.object({
  facts: z._default(z.array(z.unknown()), []),
  opinions: z._default(z.array(z.unknown()), []),
});
