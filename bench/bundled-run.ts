import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../infra/bundling';
import { BENCH_BUNDLE, benchBundleOptions } from './bundle';

/*
 * `npm run bench`: the benchmark (bench/run.ts) bundled as Lambda's functions are (bench/bundle.ts),
 * then run in a Node of its own with source maps on, as the functions run. `BENCH_SOURCES=1` runs the
 * sources through tsx instead, as the benchmark ran before 2026-11-30.
 */
async function main() {
  if (process.env.BENCH_SOURCES) {
    await import('./run');
    return;
  }
  await build(benchBundleOptions(join(ROOT, 'bench', 'run.ts'), BENCH_BUNDLE));
  const run = spawnSync(process.execPath, ['--enable-source-maps', BENCH_BUNDLE], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
}

void main();
