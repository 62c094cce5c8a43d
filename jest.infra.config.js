/**
 * The infra suite (npm run test:infra): the CDK app synthesized as `cdk synth` does (real bundling, cdk-nag),
 * every bundle's size and contents, and every bundle run on Node.js 24. Each builds every function, minutes
 * of CPU, so it runs on its own: in .ci/run, and after touching infra/, a dependency or a function's imports.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/infra'],
  testPathIgnorePatterns: ['/node_modules/'],
};
