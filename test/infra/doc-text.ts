import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/* What the doc-figures tests read of a page, and how they compare its figures with the code's. */

/** A doc page's prose: its code blocks out, its lines joined, so a sentence reads the same however it is wrapped. */
export const prose = (page: string) =>
  readFileSync(join(__dirname, '..', '..', 'docs', page), 'utf8')
    .replace(/^```[\s\S]*?^```/gm, ' ')
    .replace(/\s+/g, ' ');
/** The part of a page's prose from a heading to the next of its level. */
export const section = (page: string, heading: string) => {
  const text = prose(page);
  const start = text.indexOf(`## ${heading} `);
  if (start < 0) throw new Error(`${page} has no section ${heading}`);
  const end = text.indexOf(' ## ', start + 3);
  return end < 0 ? text.slice(start) : text.slice(start, end);
};

/**
 * `text` states each claim, and no figure besides: once the claims and the figures the code does not make
 * are taken out, and inline code (commands, codes) and link targets, no digit is left.
 */
export function expectOnlyFigures(
  text: string,
  claims: readonly string[],
  notTheCode: Readonly<Record<string, string>>,
) {
  expect(claims.filter((claim) => !text.includes(claim))).toEqual([]);
  expect(Object.keys(notTheCode).filter((figure) => !text.includes(figure))).toEqual([]);
  const rest = [...claims, ...Object.keys(notTheCode)]
    .sort((a, b) => b.length - a.length)
    .reduce((left, figure) => left.split(figure).join(' … '), text)
    .replace(/`[^`]*`/g, ' ')
    .replace(/\]\([^)]*\)/g, ']');
  expect([...rest.matchAll(/\S*\d\S*/g)].map((m) => rest.slice(Math.max(0, m.index - 40), m.index + 40))).toEqual([]);
}

/** Figures a page states that the code does not make, in groups that share why. */
export type FiguresWhy = readonly (readonly [why: string, figures: readonly string[]])[];
/** The groups as `expectOnlyFigures` takes them: each figure with its why. */
export const listed = (groups: FiguresWhy) =>
  Object.fromEntries(groups.flatMap(([why, figures]) => figures.map((figure) => [figure, why])));

/** A number as the pages write it: thousands with commas. */
export const thousands = (n: number) => n.toLocaleString('en-US');

/** A module constant the code does not export, as its source sets it (`const NAME = <number expression>;`). */
export function constantIn(file: string, name: string): number {
  const source = readFileSync(join(__dirname, '..', '..', file), 'utf8');
  const found = new RegExp(`const ${name} = ([\\d_ *]+);`).exec(source);
  if (!found) throw new Error(`${file} sets no ${name}`);
  return found[1]!
    .split('*')
    .map((factor) => Number(factor.trim().replace(/_/g, '')))
    .reduce((product, factor) => product * factor, 1);
}
