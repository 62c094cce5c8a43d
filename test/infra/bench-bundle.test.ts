import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../infra/bundling';
import { benchBundleOptions } from '../../bench/bundle';

/* `npm run bench` runs the service as esbuild bundles it, as Lambda does, not its sources through tsx. */

let code: string;
beforeAll(async () => {
  const { outputFiles } = await build({
    ...benchBundleOptions(join(ROOT, 'bench', 'run.ts'), join(ROOT, 'node_modules', '.cache', 'bench-test', 'run.js')),
    write: false,
  });
  code = outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '';
}, 60_000);

it("bundles the repository's code in one scope, without keepNames' wrappers", () => {
  // The handlers, the local stack and both floors are in the bundle; none is required from the sources.
  expect(code).toContain('functions/visitor/handler.ts');
  expect(code).toContain('bench/exact-floor.ts');
  expect(code).not.toMatch(/require\("(@cm\/|\.\.?\/)/);
  // tsx compiles each function made at run time into a naming call; a Lambda bundle has none.
  expect(code).not.toMatch(/\b__name\(/);
});

it('leaves the npm packages outside, one copy for the service and the floors', () => {
  // The exact floor records the service's commands by the document client's prototype: it must be the one both use.
  expect(code).toContain('require("@aws-sdk/lib-dynamodb")');
  expect(code).toContain('require("dynalite")');
  expect(code).not.toContain('class DynamoDBDocumentClient');
});

it('gives each bundled file its own __dirname, as its source has it', () => {
  expect(code).not.toMatch(/\b__dirname\b/);
  expect(code).toContain(JSON.stringify(join(ROOT, 'packages', 'local', 'src')));
});

it('runs only the entry as a script', () => {
  // In one bundle every file's `require.main === module` holds: infra/bundle-report.ts would build every function.
  expect(code).toContain('infra/bundle-report.ts');
  expect(code).not.toContain('require.main');
});
