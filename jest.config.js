/**
 * The one jest configuration: a project a suite, each run by its npm script with --selectProjects (and by
 * .ci/run through those scripts). `npm test` runs `main`; the others run on their own for their time:
 *
 *   main         test/ but the suites below: unit, integration, e2e, golden (npm test, test:quick)
 *   browser      test/browser: the dashboard, the MCP Apps in a host page and the visitor pages' theme in
 *                Chromium (npm run test:browser; CI runs it within test:dynamodb-local)
 *   infra        test/infra: the CDK app synthesized as `cdk synth` does (real bundling, cdk-nag), every
 *                bundle's size and contents, every bundle run on Node.js 24; minutes of CPU (test:infra)
 *   lighthouse   test/lighthouse: each kind of visitor page audited by Lighthouse as a phone sees it, tens
 *                of seconds a page (test:lighthouse)
 *   reliability  test/reliability (test:reliability)
 *   scale        test/scale: thousands of pages and keywords (test:scale)
 *
 * Lighthouse, reliability and scale run one file at a time (their scripts pass --maxWorkers=1: jest sets
 * workers for a run, not a project): each file starts its own stack, and its figures are measured under
 * no neighbour's load. npm run test:coverage and test:dynamodb-local run main and browser with
 * --coverage, against the coverage settings below.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// The handlers' own log lines and metrics: errors only, and no EMF lines, unless a test turns them on.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** What every suite shares: the TypeScript sources through swc, in Node. */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // middy, Portable Text's renderer, the feed writer, the DOM packages readable-text extraction uses (through
  // linkedom), and the authorization server (oidc-provider, with its jose), ship ESM only.
  transformIgnorePatterns: [
    '/node_modules/(?!(@middy|@portabletext|feed|oidc-provider|jose|css-select|css-what|domutils|domhandler|domelementtype|dom-serializer|entities|htmlparser2|boolbase|nth-check)/)',
  ],
};

/**
 * A suite of its own folder under test/. A test timeout other than the run's is set by a setup file
 * (test/helpers/suite-timeout.ts): jest takes `testTimeout` from the root of the configuration only.
 */
const suite = (name, testTimeoutMs) => ({
  ...shared,
  displayName: name,
  roots: [`<rootDir>/test/${name}`],
  testPathIgnorePatterns: ['/node_modules/'],
  ...(testTimeoutMs === undefined
    ? {}
    : {
        globals: { SUITE_TIMEOUT_MS: testTimeoutMs },
        setupFilesAfterEnv: ['<rootDir>/test/helpers/suite-timeout.ts'],
      }),
});

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'main',
      roots: ['<rootDir>/test'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/browser/',
        '<rootDir>/test/reliability/',
        '<rootDir>/test/scale/',
        '<rootDir>/test/infra/',
        '<rootDir>/test/lighthouse/',
      ],
    },
    suite('browser'),
    suite('infra'),
    suite('lighthouse', 180_000),
    suite('reliability', 300_000),
    suite('scale', 300_000),
  ],
  // Two more workers than cores: most test time is a stack waiting on its embedded DynamoDB, its queues'
  // timers or a socket's linger, so the extra two keep the cores busy (on 2 cores: 117 s against 153 s
  // with one a core); not twice the cores, which on a large machine is as many stacks' memory again.
  maxWorkers: require('node:os').availableParallelism() + 2,
  // Prints what was skipped (and why), and fails a CI run that skipped anything.
  reporters: ['default', '<rootDir>/test/helpers/skip-reporter.js'],
  testTimeout: 30000,
  // With --coverage (npm run test:coverage, test:dynamodb-local): which lines and branches of the
  // service's code the tests run, by V8's own counters, failing under the thresholds. Not in npm test: the
  // counters double jest's time, which would take npm test past its bound (docs/reliability.md#coverage).
  coverageProvider: 'v8',
  collectCoverageFrom: ['packages/*/src/**/*.ts', 'functions/**/*.ts', '!**/*.d.ts', '!packages/dashboard/app/**'],
  coverageDirectory: 'coverage',
  coverageReporters: ['text-summary', 'json-summary'],
  // Today's level by V8's counters (2026-11-28: lines 98.1 %, branches 90.2 %), less a point of slack
  // for what moves from run to run (timers, retries).
  coverageThreshold: { global: { lines: 97, branches: 89 } },
};
