import type { JobMode } from '@cm/contract';

/** A query researched this recently is answered from the store, with no paid work. */
export const RECENT_RESEARCH_MS = 7 * 86_400_000;

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how in is it its of on or our that the their this to was what when where which who why will with you your'.split(
    ' ',
  ),
);

/** Most terms one research is indexed under, and one recall looks up. */
export const MAX_TERMS = 24;

/** The words recall matches on: lower case, letters and digits, no stopwords, each once. */
export function researchTerms(text: string): string[] {
  const words =
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)))].slice(0, MAX_TERMS);
}

/**
 * A research request's normalized query, which identifies it: the same mode, query and question (trimmed,
 * lower case, single spaces) ask the same thing. The store keeps a query's latest research and claim under it.
 */
export const normalizedResearchQuery = (mode: JobMode, query: string, question?: string | null): string =>
  [
    mode,
    query.trim().toLowerCase().replace(/\s+/g, ' '),
    (question ?? '').trim().toLowerCase().replace(/\s+/g, ' '),
  ].join('\n');

/**
 * The identity of a research job, from what it stores: its normalized query. `page_id` is left out, as
 * it only links the stored research to a page and changes none of the findings; `wait_ms` only how long
 * the caller waits. Two calls with the same identity share one job while it is in process.
 */
export const researchJobQuery = (input: { mode: JobMode; query: string; question: string | null }): string =>
  normalizedResearchQuery(input.mode, input.query, input.question);
