import { join } from 'node:path';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FUNCTIONS, WORKERS, type FunctionName, type WorkerName } from '@cm/contract';

export const ROOT = join(__dirname, '..');

/** Every function's runtime; the bundles target the same Node.js. */
export const RUNTIME = Runtime.NODEJS_24_X;

/**
 * A Lambda function of the stack, by its folder under `functions/`: a route's, a worker's, a schedule's,
 * and the streaming MCP endpoint's (behind its function URL).
 */
export type FunctionId =
  FunctionName | `${WorkerName}-worker` | 'monitor-schedule' | 'research-sweep' | 'page-schedule' | 'mcp-stream';

/** A worker's function. */
export const workerFunction = <W extends WorkerName>(worker: W) => `${worker}-worker` as const;

/** A value per worker's function, made from its worker, in WORKERS order. */
export const perWorkerFunction = <V>(make: (worker: WorkerName) => V): Record<`${WorkerName}-worker`, V> =>
  Object.fromEntries(WORKERS.map((worker) => [workerFunction(worker), make(worker)])) as Record<
    `${WorkerName}-worker`,
    V
  >;

/** Every Lambda function of the stack. */
export const FUNCTION_ENTRIES: readonly FunctionId[] = [
  ...FUNCTIONS,
  ...WORKERS.map(workerFunction),
  'monitor-schedule',
  'research-sweep',
  'page-schedule',
  'mcp-stream',
];

/** The handler module of a function or worker under `functions/`. */
export const entryOf = (name: string) => join(ROOT, 'functions', name, 'handler.ts');

/**
 * Modules swapped at bundling time, relative to the project root (esbuild's working directory); local
 * runs, which import the sources, keep the real ones. Lambda gives a function its credentials in the
 * environment, so the bundles carry only the environment provider instead of the SDK's default chain
 * (with its STS and SSO clients). And the SDK's event-stream code is loaded only
 * by an operation that streams events, which none of the functions calls.
 */
const LAMBDA_CREDENTIALS = { '@aws-sdk/credential-provider-node': './infra/lambda-credentials.ts' };
const NO_EVENT_STREAMS = { '@smithy/core/event-streams': './infra/lambda-event-streams.ts' };
/**
 * The oauth function's Koa (under oidc-provider) looks media types up in mime-db, every one of them
 * (287 KB); it names only the few in this file.
 */
const FEW_MEDIA_TYPES = { 'mime-db': './infra/koa-mime-db.json' };
/** Node's web streams, imported by middy's core for a streamed response that no function sends. */
const LAZY_WEB_STREAMS = { 'node:stream/web': './infra/lazy-web-streams.ts' };
/** The MCP SDK's JSON Schema validator, for elicitation answers in `elicitInput`, which the MCP server does not use. */
const NO_AJV = { ajv: './infra/no-ajv.ts', 'ajv-formats': './infra/no-ajv.ts' };

/**
 * The functions whose `index.js` has a client with streaming operations (Bedrock Runtime in the
 * research worker): such a client sets up the event-stream code when it is made, so they keep it
 * (esbuild refuses to bundle them without it). mcp's Lambda client is in its server.js, which keeps it.
 */
export const EVENT_STREAM_FUNCTIONS: readonly FunctionId[] = ['research-worker'];

/** The modules swapped in a function's bundle; without a name, those of a function with no streaming client. */
export const aliasesOf = (name?: FunctionId): Record<string, string> => ({
  ...LAMBDA_CREDENTIALS,
  ...LAZY_WEB_STREAMS,
  ...(name && EVENT_STREAM_FUNCTIONS.includes(name) ? {} : NO_EVENT_STREAMS),
  ...(name === 'oauth' ? FEW_MEDIA_TYPES : {}),
});

/**
 * A module a function's bundle carries as a file of its own beside `index.js`: `index.js` requires it
 * (`external`) only when a request first needs it, so a cold start neither parses nor runs it. The
 * mcp function's server (the MCP SDK with its zod, the tool listing, the Lambda client that runs the
 * tools) loads with the first POST /mcp; its handler checks the key before (docs/performance.md).
 */
export interface SideModule {
  /** The import path `index.js` keeps as a require(). */
  external: string;
  /** Its file beside `index.js`. */
  file: string;
  /** Its source, from the project root. */
  entry: string;
  /** The modules swapped in it. */
  aliases: Record<string, string>;
}

const MCP_SERVER: SideModule = {
  external: './server',
  file: 'server.js',
  entry: 'packages/runtime/src/mcp/server.ts',
  aliases: { ...LAMBDA_CREDENTIALS, ...NO_AJV },
};

/** Both MCP endpoints' functions load the same server. */
export const SIDE_MODULES: Partial<Record<FunctionId, SideModule>> = { mcp: MCP_SERVER, 'mcp-stream': MCP_SERVER };

/** How esbuild bundles each function on its own, for `cdk synth` and for `npm run bundle:report` alike. */
export const BUNDLING = {
  minify: true,
  sourceMap: true,
  // Stack traces map to file and line without the sources inside the map: Node parses the whole map
  // at load under --enable-source-maps, so the sources in it would lengthen every cold start
  // (docs/performance.md has the measurement).
  sourcesContent: false,
  target: 'node24',
  format: OutputFormat.CJS,
  // The SDK clients are bundled at the lockfile's versions; esbuild keeps only what is imported.
  externalModules: [],
  // Prefer packages' ESM builds so esbuild can drop what a function never imports.
  mainFields: ['module', 'main'],
} satisfies BundlingOptions;

/** The functions whose bundle carries files the dashboard package builds: the folder, and build-cli.ts's flag. */
const BUILT_BESIDE: Partial<Record<FunctionId, { dir: string; flag: string }>> = {
  dashboard: { dir: 'dashboard', flag: '' },
  mcp: { dir: 'mcp-apps', flag: '--mcp-apps ' },
  'mcp-stream': { dir: 'mcp-apps', flag: '--mcp-apps ' },
};

/**
 * A function's bundling: the shared options and, for the dashboard, its app built beside the handler
 * (`dashboard/`, which the handler reads), by the same build as the local stack's; for mcp, the MCP Apps'
 * HTML (`mcp-apps/`, read when a client reads an App's resource), likewise.
 */
export function bundlingOf(name: FunctionId): BundlingOptions {
  const side = SIDE_MODULES[name];
  const bundling = {
    ...BUNDLING,
    externalModules: [...BUNDLING.externalModules, ...(side ? [side.external] : [])],
    esbuildArgs: {
      '--alias': Object.entries(aliasesOf(name)).map(([module, replacement]) => `${module}=${replacement}`),
    },
  };
  const built = BUILT_BESIDE[name];
  if (!built && !side) return bundling;
  const tsx = (inputDir: string, script: string, args: string) =>
    `"${process.execPath}" "${join(inputDir, 'node_modules/tsx/dist/cli.mjs')}" "${join(inputDir, script)}" ${args}`;
  const afterBundling = (inputDir: string, outputDir: string) => [
    ...(built
      ? [tsx(inputDir, 'packages/dashboard/src/build-cli.ts', `${built.flag}"${join(outputDir, built.dir)}"`)]
      : []),
    ...(side ? [tsx(inputDir, 'infra/side-module-cli.ts', `${name} "${outputDir}"`)] : []),
  ];
  return { ...bundling, commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling } };
}
