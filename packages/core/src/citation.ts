/**
 * The citation rule (spec §2.5), written once for every way a citation reaches a page (a literal
 * `[src-<n>]` in a text, an inline `sourceCitation` among a block's nodes or in Portable Text): a
 * citation after `before` is its numbered link (`cited`) when its source is known and cited on the page;
 * otherwise the marker and the space before it are dropped: the spaces and tabs that end `before`.
 */
export const citeAfter = (before: string, cited: string | null): string =>
  cited === null ? before.replace(/[ \t]+$/, '') : before + cited;
