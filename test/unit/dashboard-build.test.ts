import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type DashboardFile } from '@cm/dashboard';
import { buildDashboard } from '@cm/dashboard/build';
import { given } from '../helpers/client';

/* The dashboard's build: small enough to load fast, and nothing in it reaches outside its own origin. */

let dir: string;
let files: DashboardFile[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cm-dashboard-test-'));
  files = await buildDashboard(dir);
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (suffix: string) => files.filter((f) => f.name.endsWith(suffix)).map((f) => f.body.toString('utf8'));

describe('buildDashboard', () => {
  it('writes the page and its hashed assets, as it returns them', () => {
    expect(files.map((f) => f.name).sort()).toEqual(
      ['index.html', ...readdirSync(join(dir, 'assets')).map((name) => `assets/${name}`)].sort(),
    );
    for (const file of files) expect(readFileSync(join(dir, file.name)).equals(file.body)).toBe(true);
    expect(files.filter((f) => /^assets\/main-[A-Z0-9]+\.js$/.test(f.name))).toHaveLength(1);
  });

  it('keeps the JavaScript under 150 KB gzipped, with Chart.js in it and the contract out of it', () => {
    const js = text('.js');
    const gzipped = js.reduce((sum, body) => sum + gzipSync(body).length, 0);
    expect(gzipped).toBeLessThan(150 * 1024);
    const bundle = js.join('\n');
    expect(bundle).toContain('Canvas is already in use'); // Chart.js's own message: the charts are bundled, not fetched
    // Only types come from @cm/contract: its zod schemas would be dead weight here.
    expect(bundle).not.toMatch(/ZodError|must be a hex color/);
  });

  it('loads nothing from elsewhere: no http(s) URL but the SVG namespace, and the page names only its own assets', () => {
    const urls = files.flatMap((f) => f.body.toString('utf8').match(/https?:\/\/[^\s"'`)<>]+/g) ?? []);
    expect([...new Set(urls)]).toEqual(urls.length ? ['http://www.w3.org/2000/svg'] : []);
    const html = given(text('index.html')[0], 'the page');
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBe(3);
    for (const ref of refs) expect(ref).toMatch(/^\/dashboard\/assets\/[\w-]+\.(js|css|svg)$/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
  });
});
