// ESLint: typescript-eslint's type-checked recommended rules, minus the few that fight this code
// (each turned off below with its reason, and only where it fights). Formatting is Prettier's
// business: eslint-config-prettier comes last and turns off every rule about layout.
import js from '@eslint/js';
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
];

/** A second guard beside dependency-cruiser: another package is imported by what it exports, never its src/. */
const DEEP_IMPORTS = {
  group: ['@cm/*/src', '@cm/*/src/**'],
  message: 'Import the package (`@cm/<name>` or a subpath its package.json exports), not its src/ files.',
};

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
