import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '../helpers/local';
import { describeWith, findLighthouseChromium, findNode24, machineProbe, type Found } from '../helpers/platform';
import { publishShowcase } from '../helpers/visitor-showcase';

/*
 * Each kind of visitor page as Lighthouse audits it for a phone (its default: mobile emulation and
 * throttling), on Node 24 (Lighthouse needs 22 or later) in a real Chromium. Accessibility, best
 * practices and SEO must score 100; performance and the bytes each page sends are printed (a speed
 * goal, not a test), of the pages the browser test shows (test/helpers/visitor-showcase.ts). The home and
 * category pages join when they exist.
 */

const probe = machineProbe();
const node24 = findNode24(probe);
const chromium = findLighthouseChromium(probe);
const lighthouseDir = probe.resolvePackage('lighthouse/package.json');
const found: Found =
  'skip' in node24
    ? node24
    : 'skip' in chromium
      ? chromium
      : lighthouseDir
        ? { path: chromium.path, via: chromium.via }
        : { skip: 'the lighthouse package is not installed: run npm ci' };

const GATED = ['accessibility', 'best-practices', 'seo'] as const;

interface Report {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string; numericValue?: number }>;
  runtimeError?: { message: string };
}

async function audit(url: string, out: string): Promise<Report> {
  if ('skip' in node24 || 'skip' in chromium || !lighthouseDir) throw new Error('nothing to run Lighthouse with');
  const flags = ['--headless=new', '--disable-gpu', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  await promisify(execFile)(
    node24.path,
    [
      join(dirname(lighthouseDir), 'cli', 'index.js'),
      url,
      '--output=json',
      `--output-path=${out}`,
      `--only-categories=${[...GATED, 'performance'].join(',')}`,
      `--chrome-flags=${flags.join(' ')}`,
      '--quiet',
    ],
    { env: { ...process.env, CHROME_PATH: chromium.path }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

/** The audits that cost a category points, by id and title: what a failure says to fix. */
const failing = (report: Report) =>
  Object.entries(report.audits)
    .filter(
      ([, a]) =>
        a.score !== null && a.score < 1 && (a.scoreDisplayMode === 'binary' || a.scoreDisplayMode === 'numeric'),
    )
    .map(([id, a]) => `${id}: ${a.title}`);

describeWith(found, 'visitor pages in Lighthouse, as a phone sees them', () => {
  let t: TestStack;
  let dir: string;
  const pages: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestStack();
    dir = mkdtempSync(join(tmpdir(), 'lighthouse-'));
    const base = t.url.replace('localhost', '127.0.0.1');
    const showcase = await publishShowcase(t);
    pages.article = `${base}${showcase.article}`;
    pages.question = `${base}${showcase.question}`;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['article', 'question'])('scores 100 in accessibility, best practices and SEO: the %s page', async (kind) => {
    const report = await audit(pages[kind]!, join(dir, `${kind}.json`));
    expect(report.runtimeError?.message).toBeUndefined();
    const scores = Object.fromEntries(Object.entries(report.categories).map(([id, c]) => [id, c.score]));
    console.log(
      JSON.stringify({
        lighthouse: kind,
        scores,
        bytes: report.audits['total-byte-weight']?.numericValue,
      }),
    );
    expect({ scores: GATED.map((id) => [id, scores[id]]), failing: failing(report) }).toEqual({
      scores: GATED.map((id) => [id, 1]),
      failing: expect.any(Array),
    });
  });
});
