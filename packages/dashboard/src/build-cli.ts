import { resolve } from 'node:path';
import { buildDashboard } from './build';
import { buildMcpApps } from './mcp-apps';

/**
 * `tsx packages/dashboard/src/build-cli.ts [--mcp-apps] <dir>`: what a function's bundling runs to put
 * the dashboard's app (the dashboard function) or the MCP Apps' HTML (the mcp function) beside its handler.
 */
const args = process.argv.slice(2);
const apps = args[0] === '--mcp-apps';
const outDir = apps ? args[1] : args[0];
if (!outDir) {
  console.error('usage: build-cli.ts [--mcp-apps] <output directory>');
  process.exit(2);
}
(apps ? buildMcpApps(resolve(outDir)) : buildDashboard(resolve(outDir))).then(
  (files) => console.log(`${apps ? 'MCP Apps' : 'dashboard'}: ${files.length} files in ${outDir}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
