/*
 * The sandbox's levers (docs/api/search-console.md#the-sandbox): words of a keyword that change its
 * figures from a day on, so a test can make a page decay for each cause. A lever is its word and a day
 * written YYYYMMDD anywhere in the keyword, e.g. `tent pegs fading 20260301`; the queries Search Console
 * derives from the keyword carry both words, so they change with it.
 */

/** The levers: what each changes from its day on. */
const LEVERS = {
  /** Half the keyword's searches: Search Console's impressions (and so clicks) halve at the same position. */
  fading: 'fading',
  /** The site ranks SLIP_PLACES places lower for it, in the rank checks and Search Console both. */
  slipping: 'slipping',
  /** Half the clicks at the same position and impressions: the CTR fell (as when an AI Overview appears). */
  zeroclick: 'zeroclick',
} as const;
type Lever = keyof typeof LEVERS;

/** Places a `slipping` keyword's site drops from its day on. */
export const SLIP_PLACES = 6;

const DATE_WORD = /^(\d{4})(\d{2})(\d{2})$/;

/** Whether `lever` holds for `keyword` on `day` (YYYY-MM-DD): the keyword has its word and a day no later. */
export function leverOn(keyword: string, lever: Lever, day: string): boolean {
  const words = keyword.split(' ');
  if (!words.includes(LEVERS[lever])) return false;
  const from = words.map((word) => DATE_WORD.exec(word)).find((match) => match !== null);
  return from !== undefined && `${from[1]}-${from[2]}-${from[3]}` <= day;
}
