/**
 * The import rule (docs/architecture/code.md#layers-and-the-import-rule), checked by `npm run lint:deps`:
 *
 *   functions, packages/local, infra  (top: wiring, the local stack, the CDK app)
 *     → runtime
 *     → tools, publishing              (the two areas' workflows; neither imports the other)
 *     → core, store, providers         (core imports only contract; store and providers may use core)
 *     → contract                       (imports nothing of ours)
 *
 * Packages are imported as `@cm/<name>`: the workspace symlinks in node_modules/@cm resolve (no
 * preserveSymlinks) to packages/<name>/src, so every rule below is written on those real paths.
 * test/ may import anything, but only through a package's entry point (or by a relative path, for
 * white-box tests of a module).
 */

const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join, posix } = require('node:path');

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What each workspace package offers: the files its package.json `exports` (or, without one, `main`)
 * points at, as anchored path patterns. Anything else in packages/<name>/ is private to that package.
 */
const ENTRY_POINTS = readdirSync(join(__dirname, 'packages'))
  .filter((name) => existsSync(join(__dirname, 'packages', name, 'package.json')))
  .flatMap((name) => {
    const manifest = JSON.parse(readFileSync(join(__dirname, 'packages', name, 'package.json'), 'utf8'));
    const targets = (value) =>
      typeof value === 'string'
        ? [value]
        : value && typeof value === 'object'
          ? Object.values(value).flatMap(targets)
          : [];
    const files = manifest.exports ? targets(manifest.exports) : [manifest.main ?? 'index.js'];
    return files.map((file) => `^${escape(posix.join('packages', name, file))}$`);
  });

/** A layer may not import these packages (by path of the resolved module). */
const FORBIDDEN = {
  contract: ['core', 'store', 'providers', 'tools', 'publishing', 'runtime', 'local'],
  core: ['store', 'providers', 'tools', 'publishing', 'runtime', 'local'],
  store: ['providers', 'tools', 'publishing', 'runtime', 'local'],
  providers: ['store', 'tools', 'publishing', 'runtime', 'local'],
  tools: ['publishing', 'runtime', 'local'],
  publishing: ['tools', 'runtime', 'local'],
  runtime: ['local'],
  // The dashboard's files and build: below the functions and the local stack, beside the workflows.
  dashboard: ['core', 'store', 'providers', 'tools', 'publishing', 'runtime', 'local'],
};

const layerRules = Object.entries(FORBIDDEN).map(([from, to]) => ({
  name: `layer-${from}`,
  comment: `packages/${from} may not import ${to.join(', ')} (nor functions, infra, test): the import rule runs one way`,
  severity: 'error',
  from: { path: `^packages/${from}/` },
  to: { path: [`^packages/(${to.join('|')})/`, '^(functions|infra|test)/'] },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'functions-not-to-local-or-infra',
      comment:
        'a function is wiring over runtime and the packages below it; the local stack and the CDK app sit beside it, not under it',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: ['^packages/local/', '^(infra|test)/'] },
    },
    {
      name: 'local-not-to-infra',
      comment: 'the local stack runs the same handlers as the CDK app but does not depend on it',
      severity: 'error',
      from: { path: '^packages/local/' },
      to: { path: '^(infra|test)/' },
    },
    {
      name: 'infra-not-to-local-or-functions',
      comment:
        'the CDK app names handler entry files as strings for bundling; it imports only constants (contract, store, runtime)',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: ['^packages/local/', '^functions/', '^test/'] },
    },
    {
      name: 'no-deep-import',
      comment:
        'reach another package only through what its package.json exports (`@cm/x`, `@cm/x/<subpath>`), never its other files',
      severity: 'error',
      from: { path: '^(?:packages/([^/]+)/|functions/|infra/)' },
      to: { path: '^packages/', pathNot: ['^packages/$1/', ...ENTRY_POINTS] },
    },
    {
      name: 'no-deep-import-from-tests',
      comment:
        'tests may open a module by its relative path (white-box), but `@cm/x/src/...` is a deep import all the same',
      severity: 'error',
      from: { path: '^test/' },
      to: { dependencyTypes: ['aliased-workspace'], pathNot: ENTRY_POINTS },
    },
    {
      name: 'no-unexported-import',
      comment:
        "an `@cm/x/...` import that does not resolve: the package's `exports` does not offer it (e.g. `@cm/x/src/y`)",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^@cm/' },
    },
    {
      name: 'no-relative-cross-package',
      comment:
        'import a package as `@cm/<name>`, not by a relative path into it (packages/local may import functions/ handlers by path)',
      severity: 'error',
      from: { path: '^(?:packages/([^/]+)/|functions/|infra/)' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased'] },
    },
    {
      name: 'no-circular',
      comment:
        'modules import each other in one direction only; a circle means the two belong together or a third module is missing',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that does not resolve: a typo or a missing dependency',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^@cm/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['(^|/)node_modules/', '(^|/)cdk\\.out/', '(^|/)\\.data/', '(^|/)coverage/', '^test/fixtures/'] },
    // Type-only imports count too: a type from an upper layer is still a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
      mainFields: ['types', 'main'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
