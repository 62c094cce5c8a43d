/*
 * CI: every commit since the baseline follows docs/contributing.md#commits. The history before the
 * baseline (main at 7b2b548, when the check came) is left as it is: 278 of its subjects are over 72
 * characters. Merge commits are git's own words and are not checked. A shallow clone may not hold the
 * baseline: then the commits it holds that were committed after the baseline are checked.
 */
import { execFileSync } from 'node:child_process';
import { commitProblems } from './commit-rule';

const BASELINE = '7b2b548c46ad92931eff84ae12162a97b9159b78';
/** The baseline's committer date, to tell new commits from old in a clone cut short before it. */
const BASELINE_DATE = '2026-11-29T13:20:59Z';

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const succeeds = (...args: string[]) => {
  try {
    git(...args);
    return true;
  } catch {
    return false;
  }
};

if (!succeeds('rev-parse', '--git-dir')) {
  console.log('check-commits: not a git checkout, no commits to check');
  process.exit(0);
}
const hasBaseline = succeeds('cat-file', '-e', `${BASELINE}^{commit}`);
if (!hasBaseline && git('rev-parse', '--is-shallow-repository').trim() !== 'true') {
  console.error(
    `check-commits: the baseline ${BASELINE} is not in this history; fetch it, or update it in .ci/check-commits.ts`,
  );
  process.exit(1);
}
const range = hasBaseline ? [`${BASELINE}..HEAD`] : ['HEAD', `--since=${BASELINE_DATE}`];
// NUL-separated records of hash and full message.
const records = git('log', '--no-merges', '--format=%H%n%B%x00', ...range)
  .split('\0')
  .map((record) => record.replace(/^\n/, ''))
  .filter((record) => record.trim() !== '');

let failed = 0;
for (const record of records) {
  const newline = record.indexOf('\n');
  const hash = record.slice(0, newline);
  const problems = commitProblems(record.slice(newline + 1));
  if (problems.length === 0) continue;
  failed++;
  console.error(`${hash.slice(0, 12)} ${record.slice(newline + 1).split('\n')[0]}\n  ${problems.join('\n  ')}`);
}
const scope = hasBaseline ? `since ${BASELINE.slice(0, 7)}` : `in this shallow clone since ${BASELINE_DATE}`;
console.log(`check-commits: ${records.length} checked ${scope}, ${failed} not following docs/contributing.md#commits`);
if (failed > 0) process.exit(1);
