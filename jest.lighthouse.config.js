/**
 * The Lighthouse suite (npm run test:lighthouse): each kind of visitor page audited as a phone sees it,
 * by Lighthouse on Node 24 in a real Chromium (Debian's in CI). Tens of seconds a page, so it runs on its
 * own: in .ci/run, and after touching what a visitor page renders or sends.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/lighthouse'],
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 1,
  testTimeout: 180_000,
};
