/**
 * A signal that aborts after `ms` (a `TimeoutError`, as `AbortSignal.timeout`'s; at once when `ms` ≤ 0), or as soon as `parent`
 * does, kept alive by its own timer until `clear()`. Not `AbortSignal.any([AbortSignal.timeout(ms), parent])`:
 * on Node 20 a timeout signal followed only by a composite can be collected before it fires
 * (nodejs/node#57736), and the call it was to end then runs on to the function's own timeout.
 */
export interface TimeLimit {
  readonly signal: AbortSignal;
  /** Stops the timer and stops following `parent`: call it once the limited work is over. */
  clear(): void;
}

export function timeLimit(ms: number, parent?: AbortSignal): TimeLimit {
  const controller = new AbortController();
  const timeUp = () => controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError'));
  // No time at all is up at once, not after a tick: whoever checks the signal next sees it.
  if (ms <= 0) timeUp();
  const timer = ms > 0 ? setTimeout(timeUp, ms) : undefined;
  const followParent = () => controller.abort(parent?.reason);
  if (parent?.aborted) followParent();
  else parent?.addEventListener('abort', followParent, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', followParent);
    },
  };
}
