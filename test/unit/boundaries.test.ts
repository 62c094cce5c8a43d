/**
 * The import rule (.dependency-cruiser.cjs) fails on a violation: it runs over a small made-up
 * workspace written to a temporary directory (the same layout: packages/<name>/src, `@cm/<name>`
 * symlinks in node_modules), which breaks each rule once next to imports the rule allows. That this
 * repository breaks none is `npm run lint:deps`'s to say (CI runs it), not repeated here.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = '.dependency-cruiser.cjs';

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Runs depcruise as `npm run lint:deps` does; `json` for the list of violations, `err` for its exit code. */
function depcruise(cwd: string, paths: string[], outputType: 'json' | 'err') {
  const run = spawnSync(process.execPath, [DEPCRUISE, ...paths, '--config', CONFIG, '--output-type', outputType], {
    cwd,
    encoding: 'utf8',
  });
  if (run.error) throw run.error;
  return { status: run.status, report: run.stdout + run.stderr };
}

function violationsOf(cwd: string, paths: string[]): Violation[] {
  const { report } = depcruise(cwd, paths, 'json');
  const result = JSON.parse(report) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return result.summary.violations
    .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }))
    .sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

const manifest = (name: string, exports?: Record<string, string>) =>
  JSON.stringify({
    name: `@cm/${name}`,
    version: '0.0.0',
    private: true,
    main: 'src/index.ts',
    types: 'src/index.ts',
    ...(exports ? { exports } : {}),
  });

/** The made-up workspace: every file, and the package manifests. `runtime` declares no `exports`, `tools` does. */
const PACKAGES: Record<string, Record<string, string> | undefined> = {
  contract: { '.': './src/index.ts' },
  core: { '.': './src/index.ts' },
  store: { '.': './src/index.ts', './errors': './src/errors.ts' },
  providers: { '.': './src/index.ts' },
  tools: { '.': './src/index.ts' },
  publishing: { '.': './src/index.ts' },
  runtime: undefined,
};

const FILES: Record<string, string> = {
  // allowed: each layer importing the ones below it, and a subpath a package exports
  'packages/contract/src/index.ts': `export const LIMIT = 1;\n`,
  'packages/core/src/index.ts': `import { LIMIT } from '@cm/contract';\nexport const twice = () => LIMIT * 2;\n`,
  'packages/store/src/index.ts': `import { LIMIT } from '@cm/contract';\nimport { twice } from '@cm/core';\nexport const store = () => LIMIT + twice();\n`,
  'packages/store/src/errors.ts': `export class InvalidCursor extends Error {}\n`,
  'packages/providers/src/index.ts': `import { twice } from '@cm/core';\nexport const provider = () => twice();\n`,
  'packages/tools/src/index.ts': `import { store } from '@cm/store';\nimport { provider } from '@cm/providers';\nexport const tool = () => store() + provider();\n`,
  'packages/tools/src/internal.ts': `export const internal = 1;\n`,
  'packages/publishing/src/index.ts': `import { store } from '@cm/store';\nexport const publish = () => store();\n`,
  'packages/runtime/src/index.ts': `import { tool } from '@cm/tools';\nimport { publish } from '@cm/publishing';\nimport { InvalidCursor } from '@cm/store/errors';\nexport const run = () => [tool(), publish(), InvalidCursor];\n`,
  'packages/runtime/src/internal.ts': `export const internal = 1;\n`,
  'functions/ok/handler.ts': `import { run } from '@cm/runtime';\nexport const handler = () => run();\n`,

  // violations, one rule each
  'packages/core/src/to-store.ts': `import type { store } from '@cm/store';\nexport type S = typeof store;\n`,
  'packages/core/src/to-runtime.ts': `import { run } from '@cm/runtime';\nexport const r = run;\n`,
  'packages/core/src/to-providers.ts': `import { provider } from '@cm/providers';\nexport const p = provider;\n`,
  'packages/store/src/to-runtime.ts': `import { run } from '@cm/runtime';\nexport const r = run;\n`,
  'packages/providers/src/to-store.ts': `import { store } from '@cm/store';\nexport const s = store;\n`,
  'packages/contract/src/to-core.ts': `import { twice } from '@cm/core';\nexport const t = twice;\n`,
  'packages/tools/src/to-publishing.ts': `import { publish } from '@cm/publishing';\nexport const p = publish;\n`,
  'functions/deep/handler.ts': `import { internal } from '@cm/runtime/src/internal';\nexport const handler = () => internal;\n`,
  'functions/unexported/handler.ts': `import { internal } from '@cm/tools/src/internal';\nexport const handler = () => internal;\n`,
  'functions/relative/handler.ts': `import { run } from '../../packages/runtime/src/index';\nexport const handler = () => run();\n`,
  'packages/publishing/src/relative.ts': `import { store } from '../../store/src/index';\nexport const s = store;\n`,
  'packages/contract/src/a.ts': `import { b } from './b';\nexport const a = () => b;\n`,
  'packages/contract/src/b.ts': `import { a } from './a';\nexport const b = () => a;\n`,
};

/** Sorted by importing file, then imported one. */
const EXPECTED: Violation[] = [
  { rule: 'no-deep-import', from: 'functions/deep/handler.ts', to: 'packages/runtime/src/internal.ts' },
  { rule: 'no-relative-cross-package', from: 'functions/relative/handler.ts', to: 'packages/runtime/src/index.ts' },
  { rule: 'no-unexported-import', from: 'functions/unexported/handler.ts', to: '@cm/tools/src/internal' },
  // a circle is reported once, at the first of its imports
  { rule: 'no-circular', from: 'packages/contract/src/a.ts', to: 'packages/contract/src/b.ts' },
  { rule: 'layer-contract', from: 'packages/contract/src/to-core.ts', to: 'packages/core/src/index.ts' },
  { rule: 'layer-core', from: 'packages/core/src/to-providers.ts', to: 'packages/providers/src/index.ts' },
  { rule: 'layer-core', from: 'packages/core/src/to-runtime.ts', to: 'packages/runtime/src/index.ts' },
  { rule: 'layer-core', from: 'packages/core/src/to-store.ts', to: 'packages/store/src/index.ts' },
  { rule: 'layer-providers', from: 'packages/providers/src/to-store.ts', to: 'packages/store/src/index.ts' },
  { rule: 'no-relative-cross-package', from: 'packages/publishing/src/relative.ts', to: 'packages/store/src/index.ts' },
  { rule: 'layer-store', from: 'packages/store/src/to-runtime.ts', to: 'packages/runtime/src/index.ts' },
  { rule: 'layer-tools', from: 'packages/tools/src/to-publishing.ts', to: 'packages/publishing/src/index.ts' },
];

describe('the import rule', () => {
  let workspace: string;

  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), 'boundaries-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), text);
    };
    write('package.json', JSON.stringify({ name: 'fixture', private: true, workspaces: ['packages/*'] }));
    write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: { module: 'preserve', moduleResolution: 'bundler', strict: true },
        include: ['packages', 'functions'],
      }),
    );
    for (const [name, exports] of Object.entries(PACKAGES)) {
      write(`packages/${name}/package.json`, manifest(name, exports));
      mkdirSync(join(workspace, 'node_modules', '@cm'), { recursive: true });
      symlinkSync(join('..', '..', 'packages', name), join(workspace, 'node_modules', '@cm', name), 'dir');
    }
    for (const [path, text] of Object.entries(FILES)) write(path, text);
    cpSync(join(ROOT, CONFIG), join(workspace, CONFIG));
  });

  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it('fails on each kind of violation, and on nothing else', () => {
    expect(violationsOf(workspace, ['packages', 'functions'])).toEqual(EXPECTED);
    // the exit code `npm run lint:deps` fails with: the number of errors
    expect(depcruise(workspace, ['packages', 'functions'], 'err').status).toBe(EXPECTED.length);
  });
});
