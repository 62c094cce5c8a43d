/*
 * The commit convention of docs/contributing.md#commits as a rule: a subject of at most 72 characters,
 * "area: what changed", then a blank line, then a body that says why. Pure, so a unit test holds it.
 */

export const MAX_SUBJECT = 72;

/** One to three words naming the area (`store`, `docs/api.md`, `Local stack`, `docs, infra`), a colon, a space, text. */
const AREA_SUBJECT = /^[\w./,+-]+(?: [\w./,+-]+){0,2}: \S/;

/** What is wrong with a commit message (its full text, as `git log --format=%B` gives it); none when it follows the convention. */
export const commitProblems = (message: string): string[] => {
  const [subject = '', second, ...rest] = message.replace(/\s+$/, '').split('\n');
  const problems: string[] = [];
  // Characters as people count them: code points, not UTF-16 units.
  const length = [...subject].length;
  if (length > MAX_SUBJECT) problems.push(`subject is ${length} characters, over ${MAX_SUBJECT}`);
  if (!AREA_SUBJECT.test(subject)) problems.push('subject is not "area: what changed"');
  if (second === undefined) problems.push('no body: a blank line, then why');
  else if (second.trim() !== '') problems.push('no blank line between the subject and the body');
  else if (rest.every((line) => line.trim() === '')) problems.push('no body: a blank line, then why');
  return problems;
};
