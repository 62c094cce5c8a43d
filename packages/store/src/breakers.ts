import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './batch';
import { decodeBreaker } from './breakers.decoder';
import { breakerKey } from './keys';

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
    const counted = await this.update(key, {
      UpdateExpression: 'ADD failures :one',
      ConditionExpression: 'attribute_not_exists(open_until) AND window_start > :floor',
      ExpressionAttributeValues: { ':one': 1, ':floor': floor },
    });
    if (counted) return this.openIfDue(key, now, counted, settings);
    const seen = await this.read(provider);
    if (seen.openUntil !== null) {
      // Open already (a call still in flight when it opened), or half-open: the probe failed, so it opens again.
      if (seen.openUntil > now) return { opened: false, state: seen };
      const reopened = await this.update(key, {
        UpdateExpression: 'SET open_until = :until, failures = :zero, window_start = :now REMOVE probe_until',
        ConditionExpression: 'open_until = :seen',
        ExpressionAttributeValues: {
          ':until': now + settings.coolDownMs,
          ':zero': 0,
          ':now': now,
          ':seen': seen.openUntil,
        },
      });
      return reopened ? { opened: true, state: reopened } : { opened: false, state: await this.read(provider) };
    }
    // Closed, with no window or one that has passed: this failure starts a new one.
    const started = await this.update(key, {
      UpdateExpression: 'SET failures = :one, window_start = :now',
      ConditionExpression:
        'attribute_not_exists(open_until) AND (attribute_not_exists(window_start) OR window_start <= :floor)',
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':floor': floor },
    });
    // Lost to a concurrent failure that started the window: that one counted, and this one is dropped.
    if (!started) return { opened: false, state: seen };
    return this.openIfDue(key, now, started, settings);
  }

  /**
   * Takes the probe of a half-open breaker (open until `openUntil`, which has passed) for `probeMs`:
   * true for the one caller that may call the provider now.
   */
  async takeProbe(provider: string, now: number, probeMs: number, openUntil: number): Promise<BreakerState | null> {
    return this.update(breakerKey(provider), {
      UpdateExpression: 'SET probe_until = :probe',
      ConditionExpression: 'open_until = :seen AND (attribute_not_exists(probe_until) OR probe_until <= :now)',
      ExpressionAttributeValues: { ':probe': now + probeMs, ':seen': openUntil, ':now': now },
    });
  }

  /** Closes a breaker that is not closed (its probe succeeded): the provider answers again. */
  async close(provider: string, now: number): Promise<void> {
    await this.update(breakerKey(provider), {
      UpdateExpression: 'SET failures = :zero, window_start = :now REMOVE open_until, probe_until',
      ConditionExpression: 'attribute_exists(open_until)',
      ExpressionAttributeValues: { ':zero': 0, ':now': now },
    });
  }

  private async openIfDue(
    key: Record<string, string>,
    now: number,
    state: BreakerState,
    settings: BreakerSettings,
  ): Promise<{ opened: boolean; state: BreakerState }> {
    if (state.failures < settings.failures) return { opened: false, state };
    const opened = await this.update(key, {
      UpdateExpression: 'SET open_until = :until, failures = :zero, window_start = :now',
      ConditionExpression: 'attribute_not_exists(open_until) AND failures >= :threshold',
      ExpressionAttributeValues: {
        ':until': now + settings.coolDownMs,
        ':zero': 0,
        ':now': now,
        ':threshold': settings.failures,
      },
    });
    return opened ? { opened: true, state: opened } : { opened: false, state };
  }

  /** One conditional UpdateItem: the item after it, or null when its condition failed. */
  private async update(
    key: Record<string, string>,
    expression: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeValues: Record<string, number>;
    },
  ): Promise<BreakerState | null> {
    try {
      const out = await this.db.send(
        new UpdateCommand({ TableName: this.table, Key: key, ...expression, ReturnValues: 'ALL_NEW' }),
      );
      return stateOf(decodeBreaker(out.Attributes ?? {}, key));
    } catch (error) {
      if (conditionFailed(error)) return null;
      throw error;
    }
  }
}

function stateOf(item: ReturnType<typeof decodeBreaker>): BreakerState {
  return {
    failures: item.failures ?? 0,
    windowStart: item.window_start ?? 0,
    openUntil: item.open_until ?? null,
    probeUntil: item.probe_until ?? null,
  };
}
