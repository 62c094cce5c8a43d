import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { article, question, startTestStack, type TestStack } from '../helpers/local';
import { describeWith, findLighthouseChromium, findNode24, machineProbe, type Found } from '../helpers/platform';

/*
 * Each kind of visitor page as Lighthouse audits it for a phone (its default: mobile emulation and
 * throttling), on Node 24 (Lighthouse needs 22 or later) in a real Chromium. Accessibility, best
 * practices and SEO must score 100; performance and the bytes each page sends are printed (a speed
 * goal, not a test). The home and category pages join when they exist.
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
    const related = (await t.call('POST', '/questions', question('how-long-shoes-last'))).body.id as string;
    await t.call(
      'POST',
      '/articles',
      article('choose-running-shoes', {
        title: 'How to choose running shoes',
        excerpt: 'Fit first, then cushioning, then grip.',
        category: 'Running shoes',
        related_question_ids: [related],
        body: [
          { _type: 'heading', level: 2, text: 'Why fit matters' },
          { _type: 'paragraph', text: 'Start with fit. Read [the fitting guide](https://example.com/fit) first.' },
          {
            _type: 'statBar',
            stats: [
              { value: '42%', label: 'fewer knee complaints' },
              { value: '8 mm', label: 'typical heel drop' },
            ],
          },
          { _type: 'list', items: ['Road: more cushioning', 'Trail: more grip'] },
          { _type: 'quote', text: 'The best shoe is the one you forget.', cite: 'A coach' },
          { _type: 'callout', tone: 'tip', text: 'Replace shoes every 500 to 800 km.' },
          { _type: 'code', language: 'js', code: 'const km = weeks * 40;' },
        ],
      }),
    );
    const q = (
      await t.call(
        'POST',
        '/questions',
        question('replace-running-shoes', {
          question: 'How often should I replace running shoes?',
          answer: [{ _type: 'paragraph', text: 'Every 500 to 800 km, sooner when the midsole feels flat.' }],
          sources: [{ id: 'src-1', title: 'A study', url: 'https://example.com/study', accessed_at: '2026-10-01' }],
        }),
      )
    ).body.id as string;
    await t.call('PUT', `/questions/${q}/summary`, { summary: 'About every 500 to 800 km.' });
    await t.call('POST', `/questions/${q}/answers`, {
      author: 'Ann',
      blocks: [{ _type: 'paragraph', text: 'I replace mine at 600 km.' }],
    });
    await t.stack.drain();
    pages.article = `${base}/sites/${t.siteId}/articles/choose-running-shoes`;
    pages.question = `${base}/sites/${t.siteId}/questions/replace-running-shoes`;
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
