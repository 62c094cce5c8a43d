/**
 * The browser suite (npm run test:browser): the dashboard, the MCP Apps in a host page and the visitor
 * pages' theme in Chromium, through the same swc transform as jest.config.js. Out of npm test for its
 * time (Chromium's processes beside jest's); CI runs it within npm run test:dynamodb-local.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/browser'],
  testPathIgnorePatterns: ['/node_modules/'],
};
