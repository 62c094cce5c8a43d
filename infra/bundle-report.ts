import { Bug } from '@cm/core';
import { join } from 'node:path';
import { buildDashboard } from '@cm/dashboard/build';
import { buildMcpApps } from '@cm/dashboard/mcp-apps';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { aliasesOf, BUNDLING, entryOf, FUNCTION_ENTRIES, ROOT, SIDE_MODULES, type FunctionId } from './bundling';

/** What one function's bundle weighs, and what is in it. */
export interface BundleSize {
  name: string;
  /** The minified `index.js` Lambda loads. */
  bytes: number;
  /** Its source map, shipped beside it for stack traces. */
  mapBytes: number;
  /** The AWS SDK clients bundled (`@aws-sdk/client-…`). */
  sdkClients: string[];
  /** Every npm package with code in the bundle (what esbuild kept of it, not merely imported). */
  packages: string[];
  /** The packages that weigh most in the bundle, heaviest first. */
  heaviest: { name: string; bytes: number }[];
  /** This repository's files with code in the bundle, relative to its root. */
  ownFiles: string[];
  /** Whether classic zod (its methods come with every schema) has code in the bundle, not only zod/mini and zod's core. */
  classicZod: boolean;
  /** The file it carries beside `index.js` and loads when first needed (SIDE_MODULES), and what is in it. */
  side?: BundleContents & { file: string; bytes: number; mapBytes: number };
}

type BundleContents = Pick<BundleSize, 'sdkClients' | 'packages' | 'heaviest' | 'ownFiles' | 'classicZod'>;

/**
 * Minified `index.js` budgets: the research worker alone carries Bedrock and the DOM libraries. The
 * default was 460 KB until OAuth's token check, the live pages' listings and rank tracking landed together
 * (serp-backlinks 464 KB, rank-worker 463 KB); 470 KB holds them with a little room. The two
 * largest paid tools were at 460 KB before they took the providers' circuit breaker and its store (6 KB),
 * research then the admission of waiting research jobs (8 KB), both the store's listings of live pages,
 * sections and domains (8 KB: every tool's store holds the pages a page-scoped call reads), OAuth access
 * tokens (7 KB, in every route function: the token's read and its scope) and rank tracking, whose schemas
 * every tool function carries (track_rankings' and the rank history's, in TOOLS) with the rank store, 7 KB;
 * serp-landscape also the rank history itself (6 KB). The oauth function is the authorization server
 * (oidc-provider with Koa and jose, 330 KB of it), which no other function carries. A site's budget
 * warnings are queued by the functions that spend its budget: the three paid tools that had no queue
 * took the SQS client with them (get-keywords 489, serp-keyword-refresh 486, serp-backlinks 493 KB),
 * and each spender the warning's few KB (research 506, serp-landscape 505, the research worker 940).
 * The rank worker reached 472 KB with the shared cache of public data (its store) and 474 KB claiming its
 * SERPs in it; the rank-collect worker, which now queues its site's run again, took the SQS client (460 KB).
 * The shared cache of public data put keyword metrics, SERPs and shared research in research and
 * serp-landscape (519 and 518 KB), and bulk monitoring's numbers, trend and detail rules in the monitor
 * workers, the plan now buying the day's numbers with the provider's client (477 and 474 KB).
 * Each site's share of the research cap (its places in a set of the cap's item, freed and admitted by
 * site) took 2 KB in research, serp-landscape and the research worker (521, 520 and 950 KB): 955 KB
 * holds the worker with a little room.
 * Each paid call's pending ledger line took the research and rank workers to 950 and 480 KB. The
 * origin secret, read at run time rather than from the environment, put the Secrets Manager client
 * and its cache (32 KB) in every function that answers HTTP: the default is 500 KB (track-rankings 491,
 * site-files 485 KB), the oauth function, which reads its own secret too, 800 KB (790).
 * The feed's full content (issue 52: each entry's body rendered as on its page) put the page renderer and
 * Portable Text's in site-files: 512 KB, held at 520 KB.
 * Issue 52's revisions, renames, schedules and IndexNow (four more stores every function's store
 * builds, and their contract) and issue 53's devices and AI Overviews grew every bundle by 6–22 KB
 * (publish 508, visitor 472, site-files 531, serp-landscape 530, the research worker 968, the rank
 * worker 501 KB): each budget 15–25 KB up, with room for a little more.
 * Issue 53's Search Console (three more stores, the connection's and the traffic's contract) and the
 * leaner request path's kept documents grew every bundle by 2–13 KB (publish 521, the rank worker 513,
 * site-files 544, serp-landscape 545 KB): each budget 10 KB up.
 */
const SCHEDULED_WORKER = 520 * 1024;
const PAID_SHARED = 555 * 1024;
const PAID_WITH_QUEUE = 535 * 1024;
export const BUNDLE_BUDGET_BYTES: { default: number; [name: string]: number } = {
  default: 530 * 1024,
  'get-keywords': PAID_WITH_QUEUE,
  'serp-keyword-refresh': PAID_WITH_QUEUE,
  'serp-backlinks': PAID_WITH_QUEUE,
  'rank-worker': SCHEDULED_WORKER,
  'monitor-worker': SCHEDULED_WORKER,
  'monitor-plan-worker': SCHEDULED_WORKER,
  research: PAID_SHARED,
  'serp-landscape': PAID_SHARED,
  'research-worker': 995 * 1024,
  oauth: 810 * 1024,
  'site-files': 555 * 1024,
};
export const budgetOf = (name: string) => BUNDLE_BUDGET_BYTES[name] ?? BUNDLE_BUDGET_BYTES.default;
/**
 * The budget of a file beside `index.js`: mcp's server.js, the MCP SDK (without ajv) and the Lambda
 * client. The v2 SDK, which speaks both protocol eras, is 330 KB of it where the v1 SDK was about 200.
 */
export const SIDE_BUDGET_BYTES = 800 * 1024;

/** The npm package a bundled file belongs to (the last `node_modules/` of its path), or the repository's own code. */
function packageOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return '(this repository)';
  const [first = '', second = ''] = path.slice(at + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

function contents(metafile: Metafile): BundleContents {
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith('.js'))?.[1];
  if (!output) throw new Bug('esbuild wrote no .js file');
  const byPackage = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const name = packageOf(path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
  }
  const sdkClients = [...byPackage.keys()].filter((name) => name.startsWith('@aws-sdk/client-')).sort();
  const heaviest = [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([name, bytes]) => ({ name, bytes }));
  const ownFiles = Object.entries(output.inputs)
    .filter(([path, input]) => input.bytesInOutput > 0 && packageOf(path) === '(this repository)')
    .map(([path]) => path)
    .sort();
  const classicZod = Object.entries(output.inputs).some(
    ([path, input]) => input.bytesInOutput > 0 && /node_modules\/zod\/v4\/classic\//.test(path),
  );
  const packages = [...byPackage]
    .filter(([name, bytes]) => bytes > 0 && name !== '(this repository)')
    .map(([name]) => name)
    .sort();
  return { sdkClients, packages, heaviest, ownFiles, classicZod };
}

/** The esbuild options `cdk synth` bundles a handler module with (BUNDLING, and `aliases` from the project root), into `outfile`. */
export const esbuildOptions = (entry: string, outfile: string, aliases = aliasesOf(), external: string[] = []) =>
  ({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: BUNDLING.format,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: BUNDLING.mainFields,
    external: [...BUNDLING.externalModules, ...external],
    alias: aliases,
    absWorkingDir: ROOT,
    outfile,
    logLevel: 'silent',
  }) satisfies BuildOptions;

/** The esbuild options of a function's `index.js`: its side module, if any, left out as a require(). */
const indexOptions = (name: FunctionId, outfile: string) => {
  const side = SIDE_MODULES[name];
  return esbuildOptions(entryOf(name), outfile, aliasesOf(name), side ? [side.external] : []);
};

/** Writes a function's side module (SIDE_MODULES) into `dir` beside its `index.js`, as its bundling does. */
export async function writeSideModule(name: FunctionId, dir: string): Promise<void> {
  const side = SIDE_MODULES[name];
  if (side) await build(esbuildOptions(join(ROOT, side.entry), join(dir, side.file), side.aliases));
}

/**
 * Writes a function's bundle into `dir` as Lambda gets it: `index.js` and its source map, its side
 * module, and for the dashboard its built app beside them, for mcp the MCP Apps. The path of `index.js`.
 */
export async function writeBundle(name: FunctionId, dir: string): Promise<string> {
  const outfile = join(dir, 'index.js');
  await build(indexOptions(name, outfile));
  await writeSideModule(name, dir);
  if (name === 'dashboard') await buildDashboard(join(dir, 'dashboard'));
  if (name === 'mcp') await buildMcpApps(join(dir, 'mcp-apps'));
  return outfile;
}

/** A bundle built in memory: its JS and map sizes, and what is in it. */
async function measured(options: BuildOptions) {
  const result = await build({ ...options, write: false, metafile: true });
  const sizeOf = (suffix: string) => {
    const file = result.outputFiles.find((output) => output.path.endsWith(suffix));
    if (!file) throw new Bug(`esbuild wrote no ${suffix} for ${String(options.outfile)}`);
    return file.contents.byteLength;
  };
  return { bytes: sizeOf('.js'), mapBytes: sizeOf('.js.map'), ...contents(result.metafile) };
}

/** Bundles one function as `cdk synth` does (the same esbuild options), in memory. */
export async function bundleSize(name: FunctionId): Promise<BundleSize> {
  const side = SIDE_MODULES[name];
  return {
    name,
    ...(await measured(indexOptions(name, 'index.js'))),
    ...(side
      ? {
          side: {
            file: side.file,
            ...(await measured(esbuildOptions(join(ROOT, side.entry), side.file, side.aliases))),
          },
        }
      : {}),
  };
}

export const bundleSizes = () => Promise.all(FUNCTION_ENTRIES.map(bundleSize));

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** `npm run bundle:report`: a table of every function's bundle; exits 1 when one is over its budget. */
async function main() {
  const sizes = await bundleSizes();
  const over = sizes.filter((size) => size.bytes > budgetOf(size.name));
  const rows = sizes.map((size) => [
    size.name,
    kb(size.bytes),
    kb(budgetOf(size.name)),
    kb(size.mapBytes),
    size.sdkClients.map((client) => client.replace('@aws-sdk/client-', '')).join(', ') || '-',
    size.heaviest.map((pkg) => `${pkg.name} ${kb(pkg.bytes)}`).join(', '),
  ]);
  const header = ['function', 'index.js', 'budget', 'source map', 'SDK clients', 'heaviest parts'];
  console.log([header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n'));
  for (const size of over)
    console.error(`${size.name}: ${kb(size.bytes)} is over its budget of ${kb(budgetOf(size.name))}`);
  process.exitCode = over.length > 0 ? 1 : 0;
}

if (require.main === module) void main();
