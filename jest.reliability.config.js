/** The reliability suite (npm run test:reliability): test/reliability only, through the same swc transform as jest.config.js. */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/reliability'],
  testPathIgnorePatterns: ['/node_modules/'],
  // One file at a time: each starts its own stack, and the figures are measured under load of their own.
  maxWorkers: 1,
  testTimeout: 300_000,
};
