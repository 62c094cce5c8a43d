import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../infra/bundling';
import { findNode24, machineProbe } from '../test/helpers/platform';
import { BENCH_BUNDLE, benchBundleOptions } from './bundle';
import { benchRuntime } from './runtime';

/*
 * `npm run bench`: the benchmark (bench/run.ts) bundled as Lambda's functions are (bench/bundle.ts),
 * then run with source maps on, as the functions run, on the functions' Node 24 where one is found
 * (bench/runtime.ts). `BENCH_SOURCES=1` runs the sources through tsx on this Node instead, as the
 * benchmark ran before 2026-11-30.
 */
async function main() {
  if (process.env.BENCH_SOURCES) {
    await import('./run');
    return;
  }
  await build(benchBundleOptions(join(ROOT, 'bench', 'run.ts'), BENCH_BUNDLE));
  const runtime = benchRuntime(findNode24(machineProbe()), process.execPath, process.version);
  if (runtime.note) console.log(runtime.note);
  const run = spawnSync(runtime.node, ['--enable-source-maps', BENCH_BUNDLE], { stdio: 'inherit' });
  if (run.error) throw run.error;
  process.exitCode = run.status ?? 1;
}

void main();
