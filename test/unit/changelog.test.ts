import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { given } from '../helpers/client';

/*
 * CHANGELOG.md keeps Keep a Changelog's shape (docs/contributing.md#the-changelog): Unreleased first, then
 * released versions newest first with their dates, and under each only the six kinds of change, none empty.
 */

const text = readFileSync(join(__dirname, '../../CHANGELOG.md'), 'utf8');
const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const versions = [...text.matchAll(/^## (.+)$/gm)].map((m) => given(m[1], 'the m[1]'));

it('starts with Unreleased, then versions with their dates, newest first', () => {
  expect(versions[0]).toBe('[Unreleased]');
  const released = versions.slice(1).map((heading) => /^\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(heading));
  expect(released.filter((match) => !match)).toEqual([]);
  const dates = released.map((match) => given(given(match, 'the match')[2], 'the match![2]'));
  expect(dates).toEqual([...dates].sort().reverse());
});

it('groups each version by the six kinds of change, each kind once, in order, none empty', () => {
  for (const section of text.split(/^## /m).slice(1)) {
    const kinds = [...section.matchAll(/^### (.+)$/gm)].map((m) => given(m[1], 'the m[1]'));
    expect(kinds.filter((kind) => !KINDS.includes(kind))).toEqual([]);
    expect(kinds).toEqual(KINDS.filter((kind) => kinds.includes(kind)));
    for (const entries of section.split(/^### .+$/m).slice(1)) expect(entries).toMatch(/^- \S/m);
  }
});
