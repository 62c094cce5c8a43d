import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { roundUsd } from '@cm/contract';
import { batchGet } from './batch';
import { decodeBudget, decodeCounter, decodeHold, type CounterItem, type HoldItem } from './budgets.decoder';
import { conditionalUpdate, conditionalWrite } from './conditional';
import {
  budgetKey,
  DEPLOYMENT_SPEND_SHARDS,
  deploymentSpendKey,
  siteSpendKey,
  spendChargedKey,
  spendHoldKey,
  spendHoldPartition,
  spendHoldsExpiredBy,
  type Key,
} from './keys';
import { Update } from './update';

/**
 * A site's limits in USD; null: no limit. `confirm_above_usd`: paid calls estimated above it need
 * approval. `warning_webhook_url`: where its budget warnings go; null: none.
 */
export interface BudgetSettings {
  daily_usd: number | null;
  monthly_usd: number | null;
  confirm_above_usd: number | null;
  warning_webhook_url: string | null;
}

/** The budget warnings a site's windows were sent (see {@link BudgetStore.claimWarning}): the latest mark of each. */
export type WarnedMarks = Partial<Record<'day' | 'month', string>>;

/** A site's settings as its budget item has them, with the warnings it was sent. */
export interface BudgetLimits extends BudgetSettings {
  warned: WarnedMarks;
}

/** Whose money: a site's (its day and month windows) or the deployment's (its daily cap). */
export type SpendScope = { siteId: number } | 'deployment';

/** The UTC day (`yyyy-mm-dd`) a reservation is made in; its month is the day's. */
export type SpendDay = string;

/** A hold as the call that placed it knows it: its id and when (epoch ms) it expires, which its key sorts by. */
export interface HoldRef {
  id: string;
  expiresAt: number;
}

/** What a window counts: `spent` settled (of it `simulated` the sandbox's list prices), `reserved` in flight. */
export interface WindowState {
  spent: number;
  reserved: number;
  simulated: number;
}

/** A scope's windows; the deployment's are not read back after a reservation or a settle (they are its shards' sums). */
export type Windows = Partial<Record<'day' | 'month', WindowState>>;

export type ReserveOutcome =
  { reserved: true; windows: Windows } | { reserved: false; window: 'day' | 'month'; state: WindowState };

type Limits = Partial<Record<'day' | 'month', number | null>>;

interface CounterWindow {
  name: 'day' | 'month';
  prefix: string;
}

/**
 * A scope's counter of a day: its items (a site's one month item, or the deployment's shards of the
 * day, each allowed its share of the cap) and the windows (attribute prefixes) a reservation counts in.
 */
interface Counter {
  shards: [Key, ...Key[]];
  windows: [CounterWindow, ...CounterWindow[]];
  /** Epoch seconds: TTL tidies the items away after their last window ended. */
  expiresAt: number;
}

/** What a write adds to each window's counts; `committed` is spent + reserved, what a condition reads. */
interface Counts {
  committed: number;
  reserved: number;
  spent: number;
  simulated: number;
}

/** The part of a hold on one shard. */
type Part = HoldItem['parts'][number];

const DAY_SECONDS = 86_400;
/** Expired holds charged per hold partition by one refusal: a bounded Query; more wait for the next refusal. */
const CHARGE_PAGE = 25;
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const micros = (usd: number) => Math.round(usd * 1e6);

/** The counter of a scope's windows of `day`: a site's month item (the month's counts and each day's), or the deployment's day shards. */
function counterOf(scope: SpendScope, day: SpendDay): Counter {
  const month = day.slice(0, 7);
  if (scope === 'deployment') {
    const shards = Array.from({ length: DEPLOYMENT_SPEND_SHARDS - 1 }, (_v, i) => deploymentSpendKey(day, i + 1));
    return {
      shards: [deploymentSpendKey(day, 0), ...shards],
      windows: [{ name: 'day', prefix: 'd' }],
      expiresAt: epochSeconds(`${day}T00:00:00Z`) + 3 * DAY_SECONDS,
    };
  }
  const next = new Date(`${month}-01T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return {
    shards: [siteSpendKey(scope.siteId, month)],
    windows: [
      { name: 'month', prefix: 'm' },
      { name: 'day', prefix: `d${day.slice(8, 10)}` },
    ],
    // Kept a month past its end, so last month's figures can still be read.
    expiresAt: Math.floor(next.getTime() / 1000) + 32 * DAY_SECONDS,
  };
}

/** A shard's share of a limit, in whole micro-USD that add up to the limit (the first shard takes the remainder). */
function shareOf(limit: number, counter: Counter, shard: number): number {
  const total = micros(limit);
  const each = Math.floor(total / counter.shards.length);
  return (shard === 0 ? total - each * (counter.shards.length - 1) : each) / 1e6;
}

/** The shard a reservation tries first, keeps its item beside, and adds a late bill to: spread by its id. */
function homeShard(counter: Counter, holdId: string): number {
  let hash = 0;
  for (const char of holdId) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % counter.shards.length;
}

/** A shard's item key; a shard number a stored hold names out of range is the first shard's. */
const shardKey = (counter: Counter, shard: number): Key => counter.shards[shard] ?? counter.shards[0];

const holdKey = (counter: Counter, hold: HoldRef): Key =>
  spendHoldKey(shardKey(counter, homeShard(counter, hold.id)), hold.expiresAt, hold.id);

/** A count of a window (`committed`, `reserved`, `spent` or `simulated`); 0 until something was counted. */
const countOf = (item: CounterItem | undefined, prefix: string, part: keyof Counts): number => {
  const count = item?.[`${prefix}_${part}`];
  return typeof count === 'number' ? count : 0;
};

/** A window's counts summed over the counter's items. */
const countsOf = (items: Array<CounterItem | undefined>, prefix: string): Counts => {
  const sum = (part: keyof Counts) => roundUsd(items.reduce((total, item) => total + countOf(item, prefix, part), 0));
  return { committed: sum('committed'), reserved: sum('reserved'), spent: sum('spent'), simulated: sum('simulated') };
};

const stateOf = (counts: Counts): WindowState => ({
  spent: counts.spent,
  reserved: Math.max(0, counts.reserved),
  simulated: counts.simulated,
});

/** Every window of a counter as its items have it. */
const windowsOf = (counter: Counter, items: Array<CounterItem | undefined>): Windows =>
  Object.fromEntries(counter.windows.map((w) => [w.name, stateOf(countsOf(items, w.prefix))]));

/** What a shard has room for: the least any window with a limit leaves of its share, in micro-USD. */
function roomOf(counter: Counter, limits: Limits, shard: number, item: CounterItem | undefined): number {
  const rooms = counter.windows.flatMap((w) => {
    const limit = limits[w.name];
    return typeof limit === 'number'
      ? [micros(shareOf(limit, counter, shard)) - micros(countOf(item, w.prefix, 'committed'))]
      : [];
  });
  return rooms.length > 0 ? Math.min(...rooms) : Number.POSITIVE_INFINITY;
}

/**
 * The parts that fit `estimate` into the shards' room, as the items read show it: the whole of it on
 * the roomiest shard, or split over the roomiest ones when no shard alone has room; null: they have
 * not, together.
 */
function partsFor(
  counter: Counter,
  limits: Limits,
  items: Array<CounterItem | undefined>,
  estimate: number,
  home: number,
) {
  const count = counter.shards.length;
  // Shards with as much room are taken from the caller's home shard on, so callers that read the same
  // items spread over them instead of all racing for the same ones.
  const rooms = counter.shards
    .map((_key, shard) => ({ shard, room: roomOf(counter, limits, shard, items[shard]) }))
    .filter(({ room }) => room > 0)
    .sort((a, b) => b.room - a.room || ((a.shard - home + count) % count) - ((b.shard - home + count) % count));
  const parts: Part[] = [];
  let left = micros(estimate);
  for (const { shard, room } of rooms) {
    if (left <= 0) break;
    const usd = Math.min(room, left);
    parts.push({ shard, usd: usd / 1e6 });
    left -= usd;
  }
  return left > 0 || parts.length === 0 ? null : parts;
}

/** Tries a reservation that must be placed or split makes at most, each lost only to concurrent callers. */
const PLACE_ROUNDS = 3;

/** `billed` split over a reservation's parts in proportion to them, in micro-USD that add up to it. */
function billsOf(billed: number, parts: [Part, ...Part[]]): number[] {
  const held = parts.reduce((sum, part) => sum + micros(part.usd), 0);
  const bills = parts.map((part) => (held > 0 ? Math.floor((micros(billed) * micros(part.usd)) / held) : 0));
  bills[0] = micros(billed) - bills.slice(1).reduce((sum, bill) => sum + bill, 0);
  return bills.map((bill) => bill / 1e6);
}

/** A site's limits as its budget item has them (none stored: no limits). */
const limitsOf = (siteId: number, item: Record<string, unknown> | undefined): BudgetLimits => {
  const stored = item ? decodeBudget(item, budgetKey(siteId)) : {};
  return {
    daily_usd: stored.daily_usd ?? null,
    monthly_usd: stored.monthly_usd ?? null,
    confirm_above_usd: stored.confirm_above_usd ?? null,
    warning_webhook_url: stored.warning_webhook_url ?? null,
    warned: {
      ...(stored.warned_day === undefined ? {} : { day: stored.warned_day }),
      ...(stored.warned_month === undefined ? {} : { month: stored.warned_month }),
    },
  };
};

/**
 * Spend limits and counters, changed only by single-item conditional writes (the embedded DynamoDB has
 * no transactions). Each window keeps `committed` = spent + reserved, so "spent + reserved + estimate ≤
 * limit" is one condition, `committed ≤ limit − estimate`, on one attribute (a condition cannot add). A
 * site's day and month windows live on one item per month, so one update reserves both; the
 * deployment's day is split over shards, each allowed its share of the cap. Counters keep only sums:
 * each reservation in flight is an item of its own, written after its counter took the estimate and
 * removed before its counter gives it back, so a crash between the two leaves the estimate counted (an
 * early refusal), never uncounted (an overspend). Its key sorts by when it expires, so a dead call's
 * hold is found by a bounded Query and charged at its estimate.
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
  async setLimits(siteId: number, change: Partial<BudgetSettings>, at: string): Promise<BudgetLimits> {
    const update = new Update().set('updated_at', at, { valueKey: 'at' });
    for (const [name, value] of Object.entries(change)) if (value !== undefined) update.set(name, value);
    const out = await this.db.send(
      new UpdateCommand({ TableName: this.table, Key: budgetKey(siteId), ...update.input(), ReturnValues: 'ALL_NEW' }),
    );
    return limitsOf(siteId, out.Attributes);
  }

  /**
   * Claims a budget warning once: `mark` (`<period>:<level>`, levels zero-padded so marks sort as they
   * happen) replaces the window's latest only if it comes after it, in one conditional write on the
   * site's budget item. True for the one caller that moved it; a repeat, a racer or an earlier level
   * of the same period gets false.
   */
  async claimWarning(siteId: number, window: 'day' | 'month', mark: string): Promise<boolean> {
    const warned = `warned_${window}`;
    const claim = new Update().set(warned, mark, { valueKey: 'mark' });
    claim.when(`${claim.absent(warned)} OR ${claim.name(warned)} < ${claim.value('mark', mark)}`);
    return (await conditionalUpdate(this.db, this.table, budgetKey(siteId), claim)).ok;
  }

  /** What the scope's windows of `day` count (one consistent read; the deployment's shards in one BatchGetItem). */
  async windows(scope: SpendScope, day: SpendDay): Promise<Windows> {
    const counter = counterOf(scope, day);
    return windowsOf(counter, await this.items(counter));
  }

  /**
   * Reserves `estimate` for `hold` in the scope's windows of `day`, if every window with a limit has
   * room (see {@link place}). Refused, it charges the holds that expired (each only once): that frees
   * no room, it moves them from reserved to spent and keeps their items from piling up.
   */
  async reserve(scope: SpendScope, day: SpendDay, hold: HoldRef, estimate: number, limits: Limits) {
    const counter = counterOf(scope, day);
    const outcome = await this.place(counter, hold, estimate, limits);
    if (!outcome.reserved) await this.chargeExpired(counter);
    return outcome;
  }

  /**
   * Settles `hold` to what the call was billed: its item is removed (which tells whether it was still
   * there), then each part's estimate leaves `reserved` and the bill joins `spent` (and `simulated`,
   * when it was the sandbox's list price). A hold that expired meanwhile (its call outlived it) was
   * charged at its estimate and left a mark: the settle that removes the mark (only one can) replaces
   * that charge with the bill. With neither (settled already, or never held) the bill is only added.
   * Answers the windows after it.
   */
  async settle(scope: SpendScope, day: SpendDay, hold: HoldRef, billed: number, simulated: boolean): Promise<Windows> {
    const counter = counterOf(scope, day);
    const key = holdKey(counter, hold);
    const held = await this.removeHold(key);
    const charged = held ? undefined : await this.removeHold(spendChargedKey(key));
    const found = held ?? charged;
    const parts: [Part, ...Part[]] = found?.parts[0]
      ? [found.parts[0], ...found.parts.slice(1)]
      : [{ shard: homeShard(counter, hold.id), usd: 0 }];
    const bills = billsOf(billed, parts);
    const prefixes = counter.windows.map((w) => w.prefix);
    const items = await Promise.all(
      parts.map((part, i) => {
        const bill = bills[i] ?? 0;
        // Held: the part leaves `reserved`. Charged: the part left `reserved` for `spent`, which the bill corrects.
        const counts = held
          ? { committed: bill - part.usd, reserved: -part.usd, spent: bill }
          : { committed: bill - part.usd, spent: bill - part.usd };
        return this.add(counter, part.shard, prefixes, { ...counts, simulated: simulated ? bill : 0 });
      }),
    );
    return counter.shards.length === 1 ? windowsOf(counter, items) : {};
  }

  /** The counter's items, as one consistent read (a BatchGetItem of the shards), in shard order. */
  private async items(counter: Counter): Promise<Array<CounterItem | undefined>> {
    if (counter.shards.length === 1) {
      const out = await this.db.send(
        new GetCommand({ TableName: this.table, Key: counter.shards[0], ConsistentRead: true }),
      );
      return [out.Item && decodeCounter(out.Item, counter.shards[0])];
    }
    const read = await batchGet(this.db, this.table, counter.shards, undefined, { consistent: true });
    return counter.shards.map((key) => {
      const item = read.find((found) => found.pk === key.pk && found.sk === key.sk);
      return item && decodeCounter(item, key);
    });
  }

  /**
   * One try at a reservation: its home shard takes the whole estimate by one conditional update. Refused,
   * the counter's items are read and the estimate is placed where they have room, split over shards if no
   * one has room for it (each part a conditional update, all given back if one is refused, then read and
   * placed again, up to 3 times). Taken, the hold's item is written. Refused, the window that has no room, with what it counts.
   */
  private async place(counter: Counter, hold: HoldRef, estimate: number, limits: Limits): Promise<ReserveOutcome> {
    const whole: Part = { shard: homeShard(counter, hold.id), usd: estimate };
    const first = await this.take(counter, whole, limits);
    let parts: Part[] | null = [whole];
    // The items after the reservation (a site's is what it answers), or as read when it was refused.
    let items: Array<CounterItem | undefined> = first ? [first] : await this.items(counter);
    // Placed where the items read have room; a part lost to a concurrent caller gives the others back,
    // and the items are read again for another try, a few times at most.
    for (let round = 0; !first && round < PLACE_ROUNDS; round++) {
      if (round > 0) items = await this.items(counter);
      parts = partsFor(counter, limits, items, estimate, whole.shard);
      if (!parts) break;
      const taken = await this.takeAll(counter, parts, limits);
      if (taken) {
        items = taken;
        break;
      }
      parts = null;
    }
    if (parts) {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...holdKey(counter, hold),
            estimate,
            windows: counter.windows.map((w) => w.prefix),
            parts,
            expires_at: counter.expiresAt,
          },
        }),
      );
      return { reserved: true, windows: counter.shards.length === 1 ? windowsOf(counter, items) : {} };
    }
    // The window that has no room: the first one with a limit whose committed amount leaves less than the estimate.
    const limited = counter.windows.filter((w) => typeof limits[w.name] === 'number');
    const overflowing = limited.filter(
      (w) => micros(countsOf(items, w.prefix).committed + estimate) > micros(Number(limits[w.name])),
    );
    const full = overflowing[0] ?? limited[0] ?? counter.windows[0];
    return { reserved: false, window: full.name, state: stateOf(countsOf(items, full.prefix)) };
  }

  /** Takes every part, each on its shard: their items after it. One refused, the ones taken are given back: null. */
  private async takeAll(counter: Counter, parts: Part[], limits: Limits): Promise<CounterItem[] | null> {
    const taken = await Promise.all(parts.map((part) => this.take(counter, part, limits)));
    const items = taken.flatMap((item) => (item ? [item] : []));
    if (items.length === parts.length) return items;
    const prefixes = counter.windows.map((w) => w.prefix);
    await Promise.all(
      parts.flatMap((part, i) =>
        taken[i] ? [this.add(counter, part.shard, prefixes, { committed: -part.usd, reserved: -part.usd })] : [],
      ),
    );
    return null;
  }

  /** Adds `part` to its shard's `committed` and `reserved` if every window with a limit has room for it there: the item after it, or null. */
  private async take(counter: Counter, part: Part, limits: Limits): Promise<CounterItem | null> {
    const update = new Update().set('expires_at', counter.expiresAt, { valueKey: 'ttl' });
    for (const [i, w] of counter.windows.entries()) {
      const committed = `${w.prefix}_committed`;
      update.add(committed, part.usd, { valueKey: 'e' }).add(`${w.prefix}_reserved`, part.usd, { valueKey: 'e' });
      const limit = limits[w.name];
      if (typeof limit !== 'number') continue;
      const room = roundUsd(shareOf(limit, counter, part.shard) - part.usd);
      // More than the share never fits, not even an empty shard.
      if (room < 0) return null;
      update.when(`${update.absent(committed)} OR ${update.name(committed)} <= ${update.value(`room${i}`, room)}`);
    }
    const key = shardKey(counter, part.shard);
    const taken = await conditionalUpdate(this.db, this.table, key, update, {
      returns: 'ALL_NEW',
      decode: (item) => decodeCounter(item, key),
    });
    // Refused: a window has no room for the part on this shard.
    return taken.ok ? taken.attributes : null;
  }

  /** Adds `counts` (those not 0) to the windows `prefixes` of a shard, unconditionally: the item after it. */
  private async add(
    counter: Counter,
    shard: number,
    prefixes: string[],
    counts: Partial<Counts>,
  ): Promise<CounterItem> {
    const update = new Update().set('expires_at', counter.expiresAt, { valueKey: 'ttl' });
    for (const prefix of prefixes)
      for (const [part, count] of Object.entries(counts))
        if (count) update.add(`${prefix}_${part}`, roundUsd(count), { valueKey: part });
    const key = shardKey(counter, shard);
    const out = await this.db.send(
      new UpdateCommand({ TableName: this.table, Key: key, ...update.input(), ReturnValues: 'ALL_NEW' }),
    );
    return decodeCounter(out.Attributes ?? {}, key);
  }

  /**
   * Deletes a hold's item (or its mark): the hold if it was still there, else undefined. The delete is
   * conditional on the item, so of removers racing only one is answered with it (an unconditional
   * delete's old image is not that promise on every engine: DynamoDB Local answered two).
   */
  private async removeHold(key: Key): Promise<HoldItem | undefined> {
    const remove = new DeleteCommand({
      TableName: this.table,
      Key: key,
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValues: 'ALL_OLD',
    });
    const removed = await conditionalWrite(this.db, remove, (item) => decodeHold(item, key));
    // Refused: another remover took it first (or it was never there).
    return removed.ok ? removed.attributes : undefined;
  }

  /**
   * Charges the holds on `counter` that expired at their estimate: a Query of each hold partition for up
   * to CHARGE_PAGE of them, then each is removed and, if it was still there, its parts move from
   * `reserved` to `spent` and a mark of it is left for a late settle to correct (kept as long as the
   * counter). A hold that was never settled is a call whose run ended first, which may have been made
   * and billed: it stays counted at its held price, as its pending ledger line does.
   */
  private async chargeExpired(counter: Counter): Promise<void> {
    const ended = await Promise.all(
      counter.shards.map(async (shard) => {
        const out = await this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND sk < :ended',
            ExpressionAttributeValues: { ':pk': spendHoldPartition(shard), ':ended': spendHoldsExpiredBy(Date.now()) },
            ConsistentRead: true,
            Limit: CHARGE_PAGE,
          }),
        );
        return (out.Items ?? []).map((item) => decodeHold(item, item));
      }),
    );
    await Promise.all(
      ended.flat().map(async ({ pk, sk }) => {
        const held = await this.removeHold({ pk, sk });
        if (!held) return;
        await Promise.all([
          ...held.parts.map((part) =>
            this.add(counter, part.shard, held.windows, { reserved: -part.usd, spent: part.usd }),
          ),
          this.db.send(
            new PutCommand({
              TableName: this.table,
              Item: { ...held, ...spendChargedKey({ pk, sk }), expires_at: counter.expiresAt },
            }),
          ),
        ]);
      }),
    );
  }
}
