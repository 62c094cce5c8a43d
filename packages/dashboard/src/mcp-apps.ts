import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { MCP_APPS, type McpAppName } from '@cm/contract';
import { BROWSER_TARGET } from './build';

const APPS_DIR = join(__dirname, '..', 'app', 'mcp');

/** Each App's entry module (app/mcp/<entry>.ts), drawing with the dashboard's own report code. */
const ENTRIES: Record<McpAppName, string> = {
  keyword_landscape: 'keyword-landscape',
  backlinks: 'backlinks',
  spend: 'spend',
  search_traffic: 'search-traffic',
};

/**
 * zod (which ext-apps' App and the MCP SDK validate messages with) re-exports every locale it has, over
 * 250 KB, as a namespace a bundler cannot prune; its English one is all it uses (its default). Each App
 * page would carry them all, so they are left to that one here.
 */
const ENGLISH_ZOD: Plugin = {
  name: 'english-zod',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales'), namespace: 'english-zod' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'english-zod' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: args.path,
      loader: 'js',
    }));
  },
};

export interface McpAppFile {
  app: McpAppName;
  /** MCP_APPS[app].file. */
  name: string;
  body: Buffer;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The CSP of an App page: its own inline script and styles (by hash, so nothing else inline runs),
 * nothing from anywhere: no fetch, no frame, no image, no form, no base URL.
 */
const mcpAppCsp = (script: string, styles: string) =>
  `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(styles)}; base-uri 'none'; form-action 'none'`;

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One App as one self-contained HTML page: its script and the dashboard's styles inline. */
async function buildApp(app: McpAppName): Promise<McpAppFile> {
  const result = await build({
    entryPoints: [join(APPS_DIR, `${ENTRIES[app]}.ts`)],
    bundle: true,
    minify: true,
    format: 'esm',
    target: BROWSER_TARGET,
    outdir: 'out',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [ENGLISH_ZOD],
  });
  const of = (ext: string) => {
    const file = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!file) throw new Error(`The ${app} App's build made no ${ext} file`);
    return file.text;
  };
  const [script, styles] = [of('.js'), of('.css')];
  // esbuild escapes these in what it emits; a page whose inline code closed its own element would break.
  if (/<\/script/i.test(script) || /<\/style/i.test(styles))
    throw new Error(`The ${app} App's code closes its own inline element`);
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${mcpAppCsp(script, styles)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(MCP_APPS[app].title)}</title>`,
    `<style>${styles}</style>`,
    '</head>',
    '<body>',
    '<div id="app"></div>',
    `<script type="module">${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { app, name: MCP_APPS[app].file, body: Buffer.from(html) };
}

/**
 * Builds the MCP Apps into `outDir` (emptied first): each one HTML file, named as MCP_APPS says, that
 * has all it runs and talks only to its host. The mcp function reads them from there.
 */
export async function buildMcpApps(outDir: string): Promise<McpAppFile[]> {
  const apps = Object.keys(ENTRIES).filter((name): name is McpAppName => name in MCP_APPS);
  const files = await Promise.all(apps.map(buildApp));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const file of files) writeFileSync(join(outDir, file.name), file.body);
  return files;
}
