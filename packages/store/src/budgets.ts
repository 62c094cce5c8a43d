import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundUsd } from '@cm/contract';
import { conditionFailed } from './batch';
import { decodeBudget, decodeCounter, type CounterItem, type StoredHold } from './budgets.decoder';
import { budgetKey, deploymentSpendKey, siteSpendKey, type Key } from './keys';

/** A site's limits in USD; null: no limit. `confirm_above_usd`: paid calls estimated above it need approval. */
export interface BudgetLimits {
  daily_usd: number | null;
  monthly_usd: number | null;
  confirm_above_usd: number | null;
}

/** Whose money: a site's (its day and month windows) or the deployment's (its daily cap). */
export type SpendScope = { siteId: number } | 'deployment';

/** The UTC day (`yyyy-mm-dd`) a reservation is made in; its month is the day's. */
export type SpendDay = string;

/** What a window holds: `spent` settled (of it `simulated` the sandbox's list prices), `reserved` in flight. */
export interface WindowState {
  spent: number;
  reserved: number;
  simulated: number;
}

export type ReserveOutcome =
  | { reserved: true; windows: Partial<Record<'day' | 'month', WindowState>> }
  | { reserved: false; window: 'day' | 'month'; state: WindowState };

interface CounterWindow {
  name: 'day' | 'month';
  prefix: string;
}

/** A counter item and the windows (attribute prefixes) a reservation on it counts in. */
interface Counter {
  key: Key;
  windows: [CounterWindow, ...CounterWindow[]];
  /** Epoch seconds: TTL tidies the item away after its last window ended. */
  expiresAt: number;
}

const DAY_SECONDS = 86_400;
/** A window's counts, by the short names of the expressions. */
const PARTS = { c: 'committed', r: 'reserved', s: 'spent', m: 'simulated' } as const;
const HOLD = 'hold#';
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The counter of a scope's windows of `day`: a site's month item (the month's counts and each day's), or the deployment's day item. */
function counterOf(scope: SpendScope, day: SpendDay): Counter {
  const month = day.slice(0, 7);
  if (scope === 'deployment') {
    return {
      key: deploymentSpendKey(day),
      windows: [{ name: 'day', prefix: 'd' }],
      expiresAt: epochSeconds(`${day}T00:00:00Z`) + 3 * DAY_SECONDS,
    };
  }
  const next = new Date(`${month}-01T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return {
    key: siteSpendKey(scope.siteId, month),
    windows: [
      { name: 'month', prefix: 'm' },
      { name: 'day', prefix: `d${day.slice(8, 10)}` },
    ],
    // Kept a month past its end, so last month's figures can still be read.
    expiresAt: Math.floor(next.getTime() / 1000) + 32 * DAY_SECONDS,
  };
}

/** A count of a window (`committed`, `reserved`, `spent` or `simulated`); 0 until something was counted. */
const countOf = (item: CounterItem | undefined, prefix: string, part: string): number => {
  const count = item?.[`${prefix}_${part}`];
  return typeof count === 'number' ? count : 0;
};

const stateOf = (item: CounterItem | undefined, prefix: string): WindowState => ({
  spent: roundUsd(countOf(item, prefix, 'spent')),
  reserved: roundUsd(Math.max(0, countOf(item, prefix, 'reserved'))),
  simulated: roundUsd(countOf(item, prefix, 'simulated')),
});

/** Every window of a counter as its item holds it. */
const windowsOf = (counter: Counter, item: CounterItem | undefined): Partial<Record<'day' | 'month', WindowState>> =>
  Object.fromEntries(counter.windows.map((w) => [w.name, stateOf(item, w.prefix)]));

/** A counter's item, as a read or an update returned it. */
const counterItem = (counter: Counter, attributes: Record<string, unknown> | undefined): CounterItem | undefined =>
  attributes && decodeCounter(attributes, counter.key);

/** A site's limits as its budget item holds them (none stored: no limits). */
const limitsOf = (siteId: number, item: Record<string, unknown> | undefined): BudgetLimits => {
  const stored = item ? decodeBudget(item, budgetKey(siteId)) : {};
  return {
    daily_usd: stored.daily_usd ?? null,
    monthly_usd: stored.monthly_usd ?? null,
    confirm_above_usd: stored.confirm_above_usd ?? null,
  };
};

/**
 * Spend limits and counters, changed only by single-item conditional updates (the embedded DynamoDB
 * has no transactions). Each window keeps `committed` = spent + reserved, so "spent + reserved +
 * estimate ≤ limit" is one condition, `committed ≤ limit − estimate`, on one attribute (a condition
 * cannot add). A site's day and month windows live on one item per month, so one update reserves both.
 * Each reservation is an attribute of its own, `hold#<id>`, with its estimate and lease: settling
 * removes it with its amount, and a dead call's hold is reclaimed once its lease ended.
 */
export class BudgetStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async limits(siteId: number): Promise<BudgetLimits> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: budgetKey(siteId), ConsistentRead: true }),
    );
    return limitsOf(siteId, out.Item);
  }

  /** Sets the limits given (null: no limit); the others stay. */
  async setLimits(siteId: number, change: Partial<BudgetLimits>, at: string): Promise<BudgetLimits> {
    const fields = Object.entries(change).filter(([, v]) => v !== undefined);
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: budgetKey(siteId),
        UpdateExpression: `SET updated_at = :at${fields.map(([name]) => `, ${name} = :${name}`).join('')}`,
        ExpressionAttributeValues: { ':at': at, ...Object.fromEntries(fields.map(([name, v]) => [`:${name}`, v])) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return limitsOf(siteId, out.Attributes);
  }

  /** What the scope's windows of `day` hold (one consistent read). */
  async windows(scope: SpendScope, day: SpendDay): Promise<Partial<Record<'day' | 'month', WindowState>>> {
    const counter = counterOf(scope, day);
    return windowsOf(counter, await this.item(counter));
  }

  /**
   * Reserves `estimate` for hold `holdId` in the scope's windows of `day`, if every window with a limit
   * has room: one conditional update. Refused, it reclaims the holds whose lease ended (each only if
   * unchanged) and tries once more.
   */
  async reserve(
    scope: SpendScope,
    day: SpendDay,
    holdId: string,
    estimate: number,
    limits: Partial<Record<'day' | 'month', number | null>>,
    leaseUntil: number,
  ): Promise<ReserveOutcome> {
    const counter = counterOf(scope, day);
    const first = await this.tryReserve(counter, holdId, estimate, limits, leaseUntil);
    if (first) return first;
    const item = await this.item(counter);
    const expired = Object.entries(item ?? {}).flatMap(([name, hold]) =>
      name.startsWith(HOLD) && typeof hold === 'object' && hold.x <= Date.now() ? [{ name, hold }] : [],
    );
    const reclaimed = await Promise.all(expired.map(({ name, hold }) => this.reclaim(counter.key, name, hold)));
    const again = reclaimed.some(Boolean) ? await this.tryReserve(counter, holdId, estimate, limits, leaseUntil) : null;
    if (again) return again;
    const latest = reclaimed.some(Boolean) ? await this.item(counter) : item;
    // The window that has no room: the first one with a limit whose committed amount leaves less than the estimate.
    const limited = counter.windows.filter((w) => typeof limits[w.name] === 'number');
    const overflowing = limited.filter(
      (w) => countOf(latest, w.prefix, 'committed') + estimate > Number(limits[w.name]) + 1e-9,
    );
    const full = overflowing[0] ?? limited[0] ?? counter.windows[0];
    return { reserved: false, window: full.name, state: stateOf(latest, full.prefix) };
  }

  /**
   * Settles hold `holdId` to what the call was billed: its estimate leaves `reserved`, the bill joins
   * `spent` (and `simulated`, when it was the sandbox's list price). One update; a hold reclaimed
   * meanwhile (its call outlived its lease) only adds the bill. Answers the windows after it.
   */
  async settle(
    scope: SpendScope,
    day: SpendDay,
    holdId: string,
    estimate: number,
    billed: number,
    simulated: boolean,
  ): Promise<Partial<Record<'day' | 'month', WindowState>>> {
    const counter = counterOf(scope, day);
    // Names are given only for the attributes each update uses: DynamoDB refuses unused ones.
    const names = (parts: Array<keyof typeof PARTS>) =>
      Object.fromEntries(
        counter.windows.flatMap((w, i) => parts.map((part) => [`#${part}${i}`, `${w.prefix}_${PARTS[part]}`])),
      );
    const spend = counter.windows.flatMap((_w, i) => [`#s${i} :billed`, ...(simulated ? [`#m${i} :billed`] : [])]);
    const spendParts: Array<keyof typeof PARTS> = simulated ? ['s', 'm'] : ['s'];
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: counter.key,
          UpdateExpression: `REMOVE #hold ADD ${[...spend, ...counter.windows.flatMap((_w, i) => [`#c${i} :delta`, `#r${i} :unreserve`])].join(', ')}`,
          ConditionExpression: 'attribute_exists(#hold)',
          ExpressionAttributeNames: { ...names([...spendParts, 'c', 'r']), '#hold': `${HOLD}${holdId}` },
          ExpressionAttributeValues: {
            ':billed': billed,
            ':delta': roundUsd(billed - estimate),
            ':unreserve': -estimate,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return windowsOf(counter, counterItem(counter, out.Attributes));
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: counter.key,
        UpdateExpression: `SET expires_at = :ttl ADD ${[...spend, ...counter.windows.map((_w, i) => `#c${i} :billed`)].join(', ')}`,
        ExpressionAttributeNames: names([...spendParts, 'c']),
        ExpressionAttributeValues: { ':billed': billed, ':ttl': counter.expiresAt },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return windowsOf(counter, counterItem(counter, out.Attributes));
  }

  private async item(counter: Counter): Promise<CounterItem | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: counter.key, ConsistentRead: true }));
    return counterItem(counter, out.Item);
  }

  private async tryReserve(
    counter: Counter,
    holdId: string,
    estimate: number,
    limits: Partial<Record<'day' | 'month', number | null>>,
    leaseUntil: number,
  ): Promise<ReserveOutcome | null> {
    const names: Record<string, string> = { '#hold': `${HOLD}${holdId}` };
    const values: Record<string, unknown> = {
      ':e': estimate,
      ':hold': { e: estimate, w: counter.windows.map((w) => w.prefix), x: leaseUntil } satisfies StoredHold,
      ':ttl': counter.expiresAt,
    };
    const conditions = ['attribute_not_exists(#hold)'];
    const add: string[] = [];
    for (const [i, w] of counter.windows.entries()) {
      Object.assign(names, { [`#c${i}`]: `${w.prefix}_committed`, [`#r${i}`]: `${w.prefix}_reserved` });
      add.push(`#c${i} :e`, `#r${i} :e`);
      const limit = limits[w.name];
      if (typeof limit !== 'number') continue;
      const room = roundUsd(limit - estimate);
      // An estimate over the limit never fits, not even an empty window.
      if (room < 0) return null;
      values[`:room${i}`] = room;
      conditions.push(`(attribute_not_exists(#c${i}) OR #c${i} <= :room${i})`);
    }
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: counter.key,
          UpdateExpression: `SET #hold = :hold, expires_at = :ttl ADD ${add.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { reserved: true, windows: windowsOf(counter, counterItem(counter, out.Attributes)) };
    } catch (error) {
      if (conditionFailed(error)) return null;
      throw error;
    }
  }

  /** Takes back a dead call's hold, with its amount, only if it is still the one read. */
  private async reclaim(key: Key, name: string, hold: StoredHold): Promise<boolean> {
    const names: Record<string, string> = { '#hold': name };
    const add = hold.w.flatMap((prefix, i) => {
      Object.assign(names, { [`#c${i}`]: `${prefix}_committed`, [`#r${i}`]: `${prefix}_reserved` });
      return [`#c${i} :minus`, `#r${i} :minus`];
    });
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: `REMOVE #hold ADD ${add.join(', ')}`,
          ConditionExpression: '#hold.x = :x',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':minus': -hold.e, ':x': hold.x },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }
}
