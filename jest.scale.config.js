/** The scale suite (npm run test:scale): thousands of pages and keywords, through the same swc transform as jest.config.js. */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/scale'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
};
