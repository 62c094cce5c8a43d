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

/** Research found under some of a query's terms: the terms it is indexed under among them. */
export interface RecallHit {
  research_id: string;
  terms: readonly string[];
}

/** Research that answers a query, and the query terms it matched: why recall gives it. */
export interface RecallMatch {
  research_id: string;
  matched_terms: string[];
}

/**
 * Query terms a research must match to answer the query: all of a query of up to three terms, and
 * three quarters of a longer one, so rewording a long query still finds its research while one shared
 * word ("shoes") finds nothing.
 */
export const recallThreshold = (queryTerms: number): number => Math.ceil((queryTerms * 3) / 4);

/**
 * The research that answers a query, best first: those matching at least `recallThreshold` of its
 * terms, the most matched first, in `hits`' order among equals (the store gives them newest first).
 * Each names its matched terms in the query's order.
 */
export function answeringResearch(
  queryTerms: readonly string[],
  hits: readonly RecallHit[],
  limit: number,
): RecallMatch[] {
  const needed = recallThreshold(queryTerms.length);
  return hits
    .map((hit) => ({
      research_id: hit.research_id,
      matched_terms: queryTerms.filter((term) => hit.terms.includes(term)),
    }))
    .filter((match) => match.matched_terms.length > 0 && match.matched_terms.length >= needed)
    .sort((a, b) => b.matched_terms.length - a.matched_terms.length)
    .slice(0, limit);
}

/**
 * How long research is shared across sites: an identical request (the same normalized query) from any
 * site within a day of the research is answered with its findings, and no provider is called. A day,
 * as the shared cache's other data: web pages and reddit threads change daily, and a site's own repeat
 * keeps its stored research for RECENT_RESEARCH_MS all the same.
 */
export const SHARED_RESEARCH_MS = 86_400_000;

const normalizedText = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * A URL as one page: what the URL parser writes (scheme and host lower case), its path and query kept
 * as given, since they are case-sensitive (`/A` and `/a` are two pages), and without the fragment, which
 * no fetch sends. Text that is no URL is only trimmed.
 */
function normalizedUrl(text: string): string {
  const trimmed = text.trim();
  if (!URL.canParse(trimmed)) return trimmed;
  const url = new URL(trimmed);
  url.hash = '';
  return url.href;
}

/**
 * A research request's normalized query, which identifies it: the same mode, query and question (trimmed,
 * lower case, single spaces; a url mode's URL as {@link normalizedUrl} reads it) ask the same thing. The
 * store keeps a query's latest research and claim under it, and the shared cache its findings.
 */
export const normalizedResearchQuery = (mode: JobMode, query: string, question?: string | null): string =>
  [mode, mode === 'url' ? normalizedUrl(query) : normalizedText(query), normalizedText(question ?? '')].join('\n');

/**
 * The identity of a research job, from what it stores: its normalized query. `page_id` is left out, as
 * it only links the stored research to a page and changes none of the findings; `wait_ms` only how long
 * the caller waits. Two calls with the same identity share one job while it is in process.
 */
export const researchJobQuery = (input: { mode: JobMode; query: string; question: string | null }): string =>
  normalizedResearchQuery(input.mode, input.query, input.question);
