import type { Meter, PendingLedger } from '@cm/providers';
import type { Store } from '@cm/store';

/* A run's lines in its site's usage ledger: each paid call's pending line before the call, settled after. */

/** Where a run writes its paid calls' pending lines: the site's usage ledger, under the tool. */
export const pendingLedger = (store: Store, siteId: number, tool: string): PendingLedger => ({
  open: (call) => store.usage.open(siteId, tool, call),
  release: (line) => store.usage.release(siteId, line),
});

/**
 * Settles a run's lines: each call recorded (a paid one in place of its pending line) and the pending
 * lines of calls that never reached the provider deleted, in the same batch writes; nothing to write,
 * no request.
 */
export async function recordCalls(store: Store, siteId: number, tool: string, meter: Meter): Promise<void> {
  if (meter.calls.length > 0 || meter.released.length > 0)
    await store.usage.record(siteId, tool, meter.calls, undefined, meter.released);
}
