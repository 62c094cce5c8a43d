/**
 * Inline markup inside text fields: `[text](target)` links, where `page:<id>` targets another page of
 * the site, and literal citation markers `[src-<n>]`.
 */

/**
 * One regex for both, so a walk over a text sees each in order. Groups: 1 text, 2 target | 3 space, 4 id.
 * A target may have balanced parentheses, one level deep, as CommonMark allows
 * (`https://en.wikipedia.org/wiki/Mercury_(planet)`). A marker followed by `(` is the text of a link, not a
 * citation.
 */
export const INLINE_MARKUP = /\[([^[\]]*)\]\(((?:[^()\s]|\([^()\s]*\))+)\)|([ \t]*)\[(src-\d+)\](?!\()/g;

/** A text with its markup reduced to its words: a link to its text, a citation marker to nothing. */
export const markupWords = (text: string): string =>
  text.replace(INLINE_MARKUP, (_m, linkText?: string) => linkText ?? '');

export const PAGE_LINK = /\[([^[\]]*)\]\(page:([^()\s]+)\)/g;

/** The ids that `[text](page:<id>)` markers in a text point to, in order of first appearance. */
export function pageLinkTargets(text: string | null | undefined): string[] {
  if (!text) return [];
  const ids = new Set<string>();
  // Group 2 is not optional: every match has it.
  for (const [, , id] of text.matchAll(PAGE_LINK)) if (id !== undefined) ids.add(id);
  return [...ids];
}
