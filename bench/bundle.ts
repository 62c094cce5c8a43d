import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { BUNDLING, ROOT } from '../infra/bundling';

/*
 * The benchmark as esbuild bundles it, as Lambda runs the functions. Run from the sources through tsx,
 * each module is compiled apart: every call across modules goes through a getter of the module's
 * exports, and every function made at run time is named by a call (esbuild's keepNames), costs a
 * Lambda bundle does not have. The service's code, the local stack's and the floors' are bundled
 * together, so what the packaging costs falls on both sides alike; the packages from node_modules stay
 * outside, one copy shared by the service and the floors (the AWS SDK, whose document client the exact
 * floor records, and the embedded DynamoDB).
 */

/** Where `npm run bench` writes the bundle: under node_modules, whose packages it requires. */
export const BENCH_BUNDLE = join(ROOT, 'node_modules', '.cache', 'bench', 'run.js');

/**
 * Only this repository's code in the bundle (relative imports and the `@cm/` packages), each file's
 * `__dirname` and `__filename` its own as the sources have them (the dashboard's app and the DynamoDB
 * Local guard are read beside them), and only the entry run as a script: in one bundle every file's
 * `require.main === module` holds (infra/bundle-report.ts would build every function beside the bench).
 */
const ownCodeOnly: Plugin = {
  name: 'own-code-only',
  setup(bundle) {
    bundle.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cm/') || args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
    );
    bundle.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const entry = bundle.initialOptions.entryPoints;
      const isEntry = Array.isArray(entry) && entry.includes(args.path);
      return {
        contents: (isEntry ? text : text.replaceAll('require.main === module', 'false'))
          .replaceAll('__dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('__filename', JSON.stringify(args.path)),
        loader: args.path.endsWith('ts') ? 'ts' : 'js',
      };
    });
  },
};

/** The esbuild options of the benchmark's bundle: `entry` (bench/run.ts) into `outfile`, for Node as the functions' bundles. */
export const benchBundleOptions = (entry: string, outfile: string): BuildOptions => ({
  entryPoints: [entry],
  bundle: true,
  platform: 'node',
  target: BUNDLING.target,
  format: 'cjs',
  outfile,
  sourcemap: true,
  absWorkingDir: ROOT,
  plugins: [ownCodeOnly],
  logLevel: 'warning',
});
