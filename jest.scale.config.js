/** The scale suite (npm run test:scale): thousands of pages and keywords, through the same swc transform as jest.config.js. */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/scale'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
  // One file at a time by default: each is sized to its own limits (a 10,000-link publish inside the route's
  // 29 s), which a neighbour's load would blur. npm run test:scale runs that publish alone, then the others
  // two at a time: a file's stack (the SDK client and dynalite in one process) keeps one core busy.
  maxWorkers: 1,
};
