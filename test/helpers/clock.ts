/**
 * Fakes the clock alone (`Date`), set to `now`: the servers', the SDK's and the sockets' timers run as
 * usual, so a test moves time with `jest.setSystemTime` instead of waiting for it. `jest.useRealTimers()` ends it.
 */
export function fakeClock(now: number): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
