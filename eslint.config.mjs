// ESLint: typescript-eslint's type-checked recommended rules, minus the few that fight this code
// (each turned off below with its reason, and only where it fights). Formatting is Prettier's
// business: eslint-config-prettier comes last and turns off every rule about layout.
import js from '@eslint/js';
import { relative } from 'node:path';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const TYPESCRIPT = [
  'packages/*/src/**/*.ts',
  'packages/dashboard/app/**/*.ts',
  'functions/**/*.ts',
  'infra/**/*.ts',
  'test/**/*.ts',
  'bench/**/*.ts',
  '.ci/**/*.ts',
];

/** A second guard beside dependency-cruiser: another package is imported by what it exports, never its src/. */
const DEEP_IMPORTS = {
  group: ['@cm/*/src', '@cm/*/src/**'],
  message: 'Import the package (`@cm/<name>` or a subpath its package.json exports), not its src/ files.',
};

/**
 * Type assertions (`as`, `<T>`) and non-null assertions (`!`) left in runtime code, outside the decoders:
 * each one by its file and its exact text, with the reason it stays. Nothing else passes, an entry that no
 * longer matches is an error too, and `as unknown as` is never allowed here. Decoders (`*.decoder.ts`,
 * `packages/store/src/decode.ts`) are where data becomes a type; tests may cast.
 */
const ASSERTION_EXCEPTIONS = [
  // Object.fromEntries types its keys as strings; they are WORKERS, every declared queue.
  {
    file: 'packages/contract/src/queues.ts',
    code: 'Object.fromEntries(WORKERS.map((worker) => [worker, make(worker)])) as Record<WorkerName, V>',
  },
  // The same, a key per worker's function.
  {
    file: 'infra/bundling.ts',
    code: 'Object.fromEntries(WORKERS.map((worker) => [workerFunction(worker), make(worker)])) as Record<\n    `${WorkerName}-worker`,\n    V\n  >',
  },
];
const NON_NULL_EXCEPTIONS = [];
const MAX_ASSERTIONS = 15;
const MAX_NON_NULLS = 10;
if (ASSERTION_EXCEPTIONS.length > MAX_ASSERTIONS || NON_NULL_EXCEPTIONS.length > MAX_NON_NULLS)
  throw new Error(`at most ${MAX_ASSERTIONS} listed type assertions and ${MAX_NON_NULLS} non-null assertions`);

/** typescript-eslint's `rule`, passing only the listed `exceptions` (each matches one occurrence). */
function withListedExceptions(rule, exceptions) {
  return {
    meta: {
      ...rule.meta,
      messages: { ...rule.meta.messages, unusedException: 'Listed exception no longer found: {{code}}' },
    },
    defaultOptions: rule.defaultOptions,
    create(context) {
      const file = relative(import.meta.dirname, context.filename);
      const unused = exceptions.filter((e) => e.file === file && !e.code.includes('as unknown as'));
      const report = (descriptor) => {
        const code = context.sourceCode.getText(descriptor.node);
        const at = unused.findIndex((e) => e.code === code);
        if (at >= 0) unused.splice(at, 1);
        else context.report(descriptor);
      };
      const listeners = rule.create(Object.create(context, { report: { value: report } }));
      return {
        ...listeners,
        'Program:exit'(node) {
          listeners['Program:exit']?.(node);
          for (const e of unused) context.report({ node, messageId: 'unusedException', data: { code: e.code } });
        },
      };
    },
  };
}

const assertions = {
  rules: {
    'consistent-type-assertions': withListedExceptions(
      tseslint.plugin.rules['consistent-type-assertions'],
      ASSERTION_EXCEPTIONS,
    ),
    'no-non-null-assertion': withListedExceptions(tseslint.plugin.rules['no-non-null-assertion'], NON_NULL_EXCEPTIONS),
  },
};

/** Runtime code: what the assertion rules hold (tests may cast, and the bench is a measuring tool). */
const RUNTIME_CODE = ['packages/*/src/**/*.ts', 'packages/dashboard/app/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts'];
const DECODERS = ['**/*.decoder.ts', 'packages/store/src/decode.ts'];

export default defineConfig(
  { ignores: ['**/node_modules/', '**/cdk.out/', '**/.data/', '**/coverage/', '**/dist/', 'test/fixtures/'] },

  {
    files: TYPESCRIPT,
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names are this code's way to drop fields (`const { pk: _pk, ...row } = item`) and skip tuple slots.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Async methods that implement a Promise-returning interface without awaiting (sandbox providers, middy middlewares, route tables) are idiomatic; a missing await is what no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
      'no-restricted-imports': ['error', { patterns: [DEEP_IMPORTS] }],
    },
  },

  {
    // Production code reaches a package only through `@cm/<name>`; tests may open a module by path (white-box).
    files: ['packages/*/src/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            DEEP_IMPORTS,
            {
              group: ['**/packages/*/src', '**/packages/*/src/**'],
              message: 'Import the package as `@cm/<name>`, not by a relative path.',
            },
          ],
        },
      ],
    },
  },

  {
    // The local stack hands async listeners to Node's callback APIs (createServer, process.on) and catches inside them.
    files: ['packages/local/src/**/*.ts'],
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }] },
  },

  {
    files: RUNTIME_CODE,
    ignores: DECODERS,
    plugins: { assertions },
    rules: {
      'assertions/consistent-type-assertions': ['error', { assertionStyle: 'never' }],
      'assertions/no-non-null-assertion': 'error',
    },
  },

  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON replies and fixtures as `any` and assert on them field by field; the assertions are the type check.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // jest.isolateModules needs a synchronous require() to load a module afresh.
      '@typescript-eslint/no-require-imports': 'off',
      // Tests pass methods around unbound on purpose (destructured `await import(...)`, expect(obj.fn)).
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  {
    // The JavaScript config files (this one, jest's, dependency-cruiser's): plain recommended rules, no type information.
    files: ['**/*.{js,cjs,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },

  prettier,
);
