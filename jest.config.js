/** Tests run the TypeScript sources through swc. */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// The handlers' own log lines and metrics: errors only, and no EMF lines, unless a test turns them on.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The reliability, scale, infra, browser and Lighthouse suites run on their own (npm run test:reliability,
  // test:scale, test:infra, test:browser, test:lighthouse), in .ci/run.
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/browser/',
    '<rootDir>/test/reliability/',
    '<rootDir>/test/scale/',
    '<rootDir>/test/infra/',
    '<rootDir>/test/lighthouse/',
  ],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // middy, Portable Text's renderer, the feed writer, the DOM packages readable-text extraction uses (through
  // linkedom), and the authorization server (oidc-provider, with its jose), ship ESM only.
  transformIgnorePatterns: [
    '/node_modules/(?!(@middy|@portabletext|feed|oidc-provider|jose|css-select|css-what|domutils|domhandler|domelementtype|dom-serializer|entities|htmlparser2|boolbase|nth-check)/)',
  ],
  // Two more workers than cores: most test time is a stack waiting on its embedded DynamoDB, its queues'
  // timers or a socket's linger, so the extra two keep the cores busy (on 2 cores: 117 s against 153 s
  // with one a core); not twice the cores, which on a large machine is as many stacks' memory again.
  maxWorkers: require('node:os').availableParallelism() + 2,
  // Prints what was skipped (and why), and fails a CI run that skipped anything.
  reporters: ['default', '<rootDir>/test/helpers/skip-reporter.js'],
  testTimeout: 30000,
};
