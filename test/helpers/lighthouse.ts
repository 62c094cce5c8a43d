import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findLighthouseChromium, findNode24, machineProbe, type Found } from './platform';

/*
 * Lighthouse as the Lighthouse suite and `npm run bench` run it: the npm package's CLI on a Node 24 (it
 * needs 22 or later), against a Chromium of the machine's, with its default mobile emulation and
 * throttling.
 */

export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface LighthouseReport {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string; numericValue?: number }>;
  runtimeError?: { message: string };
}

const probe = machineProbe();
const node24 = findNode24(probe);
const chromium = findLighthouseChromium(probe);
const lighthouseDir = probe.resolvePackage('lighthouse/package.json');

/** What runs Lighthouse here, or why nothing can. */
export const lighthouseFound: Found =
  'skip' in node24
    ? node24
    : 'skip' in chromium
      ? chromium
      : lighthouseDir
        ? { path: chromium.path, via: chromium.via }
        : { skip: 'the lighthouse package is not installed: run npm ci' };

/** Lighthouse's report of `url`, written to `out` (a JSON file) on the way. */
export async function lighthouse(url: string, out: string): Promise<LighthouseReport> {
  if ('skip' in node24 || 'skip' in chromium || !lighthouseDir) throw new Error('nothing to run Lighthouse with');
  const flags = ['--headless=new', '--disable-gpu', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  await promisify(execFile)(
    node24.path,
    [
      join(dirname(lighthouseDir), 'cli', 'index.js'),
      url,
      '--output=json',
      `--output-path=${out}`,
      `--only-categories=${LIGHTHOUSE_CATEGORIES.join(',')}`,
      `--chrome-flags=${flags.join(' ')}`,
      '--quiet',
    ],
    { env: { ...process.env, CHROME_PATH: chromium.path }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(readFileSync(out, 'utf8')) as LighthouseReport;
}
