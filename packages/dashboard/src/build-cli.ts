import { resolve } from 'node:path';
import { buildDashboard } from './build';

/** `tsx packages/dashboard/src/build-cli.ts <dir>`: what the dashboard function's bundling runs to put the app beside its handler. */
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: build-cli.ts <output directory>');
  process.exit(2);
}
buildDashboard(resolve(outDir)).then(
  (files) => console.log(`dashboard: ${files.length} files in ${outDir}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
