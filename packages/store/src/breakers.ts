import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeBreaker } from './breakers.decoder';
import { conditionalUpdate } from './conditional';
import { breakerKey, type Key } from './keys';
import { Update } from './update';

/** A breaker as read: closed while `open_until` is null; open before it; half-open after it, until a probe closes it. */
export interface BreakerState {
  failures: number;
  windowStart: number;
  openUntil: number | null;
  probeUntil: number | null;
}

/** When a breaker opens: after `failures` failures within `windowMs`, for `coolDownMs`. */
export interface BreakerSettings {
  failures: number;
  windowMs: number;
  coolDownMs: number;
}

const CLOSED: BreakerState = { failures: 0, windowStart: 0, openUntil: null, probeUntil: null };

/**
 * The paid providers' circuit breakers: one small item per provider, read by every function (each keeps
 * what it read a few seconds) and written only on a failure or a change of state, each write one
 * conditional UpdateItem, so concurrent failures count once each and only one of them opens it.
 */
export class BreakerStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The breaker's state; an eventually consistent read: a breaker that just changed is seen a moment later. */
  async read(provider: string): Promise<BreakerState> {
    const key = breakerKey(provider);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key }));
    return out.Item ? stateOf(decodeBreaker(out.Item, key)) : CLOSED;
  }

  /**
   * Counts a failure at `now`: in the current window of a closed breaker (a window older than
   * `windowMs` starts again at 1), then opens the breaker when the count reaches `settings.failures`.
   * A failure of a half-open breaker's probe opens it again. `opened` is true for the one failure
   * that opened it.
   */
  async recordFailure(
    provider: string,
    now: number,
    settings: BreakerSettings,
  ): Promise<{ opened: boolean; state: BreakerState }> {
    const key = breakerKey(provider);
    const floor = now - settings.windowMs;
    const count = new Update().add('failures', 1, { valueKey: 'one' });
    count.when(`${count.absent('open_until')} AND ${count.name('window_start')} > ${count.value('floor', floor)}`);
    const counted = await this.update(key, count);
    if (counted) return this.openIfDue(key, now, counted, settings);
    const seen = await this.read(provider);
    if (seen.openUntil !== null) {
      // Open already (a call still in flight when it opened), or half-open: the probe failed, so it opens again.
      if (seen.openUntil > now) return { opened: false, state: seen };
      const reopen = opening(now, settings).remove('probe_until');
      reopen.when(`${reopen.name('open_until')} = ${reopen.value('seen', seen.openUntil)}`);
      const reopened = await this.update(key, reopen);
      return reopened ? { opened: true, state: reopened } : { opened: false, state: await this.read(provider) };
    }
    // Closed, with no window or one that has passed: this failure starts a new one.
    const start = new Update().set('failures', 1, { valueKey: 'one' }).set('window_start', now, { valueKey: 'now' });
    const windowStart = start.name('window_start');
    start.when(
      `${start.absent('open_until')} AND (${start.absent('window_start')} OR ${windowStart} <= ${start.value('floor', floor)})`,
    );
    const started = await this.update(key, start);
    // Lost to a concurrent failure that started the window: that one counted, and this one is dropped.
    if (!started) return { opened: false, state: seen };
    return this.openIfDue(key, now, started, settings);
  }

  /**
   * Takes the probe of a half-open breaker (open until `openUntil`, which has passed) for `probeMs`:
   * true for the one caller that may call the provider now.
   */
  async takeProbe(provider: string, now: number, probeMs: number, openUntil: number): Promise<BreakerState | null> {
    const probe = new Update().set('probe_until', now + probeMs, { valueKey: 'probe' });
    const probeUntil = probe.name('probe_until');
    probe.when(
      `${probe.name('open_until')} = ${probe.value('seen', openUntil)} AND ` +
        `(${probe.absent('probe_until')} OR ${probeUntil} <= ${probe.value('now', now)})`,
    );
    return this.update(breakerKey(provider), probe);
  }

  /** Closes a breaker that is not closed (its probe succeeded): the provider answers again. */
  async close(provider: string, now: number): Promise<void> {
    const close = new Update()
      .set('failures', 0, { valueKey: 'zero' })
      .set('window_start', now, { valueKey: 'now' })
      .remove('open_until', 'probe_until');
    await this.update(breakerKey(provider), close.when(close.exists('open_until')));
  }

  private async openIfDue(
    key: Key,
    now: number,
    state: BreakerState,
    settings: BreakerSettings,
  ): Promise<{ opened: boolean; state: BreakerState }> {
    if (state.failures < settings.failures) return { opened: false, state };
    const open = opening(now, settings);
    open.when(
      `${open.absent('open_until')} AND ${open.name('failures')} >= ${open.value('threshold', settings.failures)}`,
    );
    const opened = await this.update(key, open);
    return opened ? { opened: true, state: opened } : { opened: false, state };
  }

  /** One conditional UpdateItem: the item after it, or null when its condition failed. */
  private async update(key: Key, update: Update): Promise<BreakerState | null> {
    const written = await conditionalUpdate(this.db, this.table, key, update, {
      returns: 'ALL_NEW',
      decode: (item) => stateOf(decodeBreaker(item, key)),
    });
    return written.ok ? written.attributes : null;
  }
}

/** What opening a breaker at `now` sets: open for the cool-down, its count and window started again. */
const opening = (now: number, settings: BreakerSettings) =>
  new Update()
    .set('open_until', now + settings.coolDownMs, { valueKey: 'until' })
    .set('failures', 0, { valueKey: 'zero' })
    .set('window_start', now, { valueKey: 'now' });

function stateOf(item: ReturnType<typeof decodeBreaker>): BreakerState {
  return {
    failures: item.failures ?? 0,
    windowStart: item.window_start ?? 0,
    openUntil: item.open_until ?? null,
    probeUntil: item.probe_until ?? null,
  };
}
