import { commitProblems, MAX_SUBJECT } from '../../.ci/commit-rule';

/** The commit convention (docs/contributing.md#commits) as .ci/check-commits.ts applies it to each new commit. */

const BODY = '\n\nWhy the change was made.\n';

it.each([
  'store: a hold is removed by one remover only, on every engine',
  'docs/api.md: the versioning policy',
  'Local stack: queues retry as SQS does',
  'docs, infra: log group names from the code',
  `core: ${'x'.repeat(MAX_SUBJECT - 'core: '.length)}`,
  // Code points, not UTF-16 units: an emoji is one character.
  `docs: ${'é'.repeat(MAX_SUBJECT - 'docs: '.length - 1)}🙂`,
])('follows the convention: %s', (subject) => {
  expect(commitProblems(`${subject}${BODY}`)).toEqual([]);
});

it('a subject over 72 characters', () => {
  const subject = `core: ${'x'.repeat(MAX_SUBJECT - 'core: '.length + 1)}`;
  expect(commitProblems(`${subject}${BODY}`)).toEqual(['subject is 73 characters, over 72']);
});

it.each([
  'A lapsed research job releases the budget it reserved',
  'store:no space after the colon',
  ': no area',
  'a sentence of many words before: the colon',
  ' store: a leading space',
  'store: ',
])('a subject that is not "area: what changed": %j', (subject) => {
  expect(commitProblems(`${subject}${BODY}`)).toEqual(['subject is not "area: what changed"']);
});

it('no blank line between the subject and the body', () => {
  expect(commitProblems('store: a change\nWhy it was made.\n')).toEqual([
    'no blank line between the subject and the body',
  ]);
});

it.each(['store: a change', 'store: a change\n', 'store: a change\n\n', 'store: a change\n\n  \n'])(
  'no body: %j',
  (message) => {
    expect(commitProblems(message)).toEqual(['no body: a blank line, then why']);
  },
);

it('every problem at once', () => {
  expect(commitProblems(`${'x'.repeat(80)}\nbody`)).toEqual([
    'subject is 80 characters, over 72',
    'subject is not "area: what changed"',
    'no blank line between the subject and the body',
  ]);
});
