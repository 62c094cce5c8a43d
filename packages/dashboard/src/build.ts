import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { ASSETS_PATH, type DashboardFile } from './files';

const APP = join(__dirname, '..', 'app');

/** The browsers the dashboard and the MCP Apps are built for. */
export const BROWSER_TARGET = ['chrome110', 'firefox115', 'safari16'];

/**
 * Builds the dashboard into `outDir`: `index.html` and `assets/` (the app's script and styles, bundled
 * and minified by esbuild, and its icon, each named by a hash of its content so it can be cached for
 * good). The HTML is the only file a new deployment changes in place.
 */
export async function buildDashboard(outDir: string): Promise<DashboardFile[]> {
  const result = await build({
    entryPoints: [join(APP, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: BROWSER_TARGET,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: join(outDir, 'assets'),
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const icon = readFileSync(join(APP, 'icon.svg'));
  const assets = [
    ...result.outputFiles.map((file) => ({ name: basename(file.path), body: Buffer.from(file.contents) })),
    { name: `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`, body: icon },
  ];
  const named = (ext: string) => {
    const asset = assets.find((a) => a.name.endsWith(ext));
    if (!asset) throw new Error(`The dashboard build made no ${ext} file`);
    return `${ASSETS_PATH}/${asset.name}`;
  };
  const html = readFileSync(join(APP, 'index.html'), 'utf8')
    .replace('{{script}}', named('.js'))
    .replace('{{styles}}', named('.css'))
    .replace('{{icon}}', named('.svg'));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  for (const asset of assets) writeFileSync(join(outDir, 'assets', asset.name), asset.body);
  writeFileSync(join(outDir, 'index.html'), html);
  return [
    { name: 'index.html', body: Buffer.from(html) },
    ...assets.map((a) => ({ name: `assets/${a.name}`, body: a.body })),
  ];
}
