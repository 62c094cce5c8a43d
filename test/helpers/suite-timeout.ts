/**
 * A jest setup file: the test timeout of a suite that has its own (SUITE_TIMEOUT_MS, from its project's
 * `globals` in jest.config.js), since jest reads `testTimeout` only from the root of the configuration.
 */
const timeout: unknown = Reflect.get(globalThis, 'SUITE_TIMEOUT_MS');
if (typeof timeout !== 'number') throw new Error("suite-timeout.ts needs SUITE_TIMEOUT_MS in its project's globals");
jest.setTimeout(timeout);
