import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '../helpers/local';
import { lighthouse, lighthouseFound, type LighthouseReport } from '../helpers/lighthouse';
import { describeWith } from '../helpers/platform';
import { publishShowcase } from '../helpers/visitor-showcase';

/*
 * Each kind of visitor page as Lighthouse audits it for a phone (its default: mobile emulation and
 * throttling), on Node 24 (Lighthouse needs 22 or later) in a real Chromium. Accessibility, best
 * practices and SEO must score 100; performance and the bytes each page sends are printed (a speed
 * goal, not a test: `npm run bench` reports them), of the pages the browser test shows
 * (test/helpers/visitor-showcase.ts): an article, a question page, the home and a category page.
 */

const GATED = ['accessibility', 'best-practices', 'seo'] as const;
const KINDS = ['article', 'question', 'home', 'category'] as const;

/** The audits that cost a category points, by id and title: what a failure says to fix. */
const failing = (report: LighthouseReport) =>
  Object.entries(report.audits)
    .filter(
      ([, a]) =>
        a.score !== null && a.score < 1 && (a.scoreDisplayMode === 'binary' || a.scoreDisplayMode === 'numeric'),
    )
    .map(([id, a]) => `${id}: ${a.title}`);

describeWith(lighthouseFound, 'visitor pages in Lighthouse, as a phone sees them', () => {
  let t: TestStack;
  let dir: string;
  const pages: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestStack();
    dir = mkdtempSync(join(tmpdir(), 'lighthouse-'));
    const base = t.url.replace('localhost', '127.0.0.1');
    const showcase = await publishShowcase(t);
    for (const kind of KINDS) pages[kind] = `${base}${showcase[kind]}`;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(KINDS)('scores 100 in accessibility, best practices and SEO: the %s page', async (kind) => {
    const report = await lighthouse(pages[kind]!, join(dir, `${kind}.json`));
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
