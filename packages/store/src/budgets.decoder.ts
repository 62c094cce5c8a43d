import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* Budget items: a site's limits, spend counters with their windows' counts, and the reservations in flight. */

const Limit = z.optional(z.nullable(z.number()));
const Mark = z.optional(z.string());
const BudgetItem = z.looseObject({
  daily_usd: Limit,
  monthly_usd: Limit,
  confirm_above_usd: Limit,
  warning_webhook_url: z.optional(z.nullable(z.string())),
  warned_day: Mark,
  warned_month: Mark,
});

/**
 * Besides its key, a counter item has only counts (`<window>_<part>`, `expires_at`). A `hold#<id>`
 * map is a reservation written before reservations had items of their own: read past, it stays counted
 * until its window ends.
 */
const CounterItem = z.catchall(z.object({ pk: z.string(), sk: z.string() }), z.union([z.number(), z.looseObject({})]));
export type CounterItem = z.infer<typeof CounterItem>;

/**
 * A reservation in flight: its estimate, the windows (attribute prefixes) it counts in, and the part of
 * it on each counter shard (a site's one counter has all of it).
 */
const HoldItem = z.looseObject({
  pk: z.string(),
  sk: z.string(),
  estimate: z.number(),
  windows: z.array(z.string()),
  parts: z.array(z.object({ shard: z.int(), usd: z.number() })),
});
export type HoldItem = z.infer<typeof HoldItem>;

type Item = Record<string, unknown>;

export const decodeBudget = (item: Item, key: Item) => decodeItem('budget', BudgetItem, item, key);
export const decodeCounter = (item: Item, key: Item): CounterItem =>
  decodeItem('spend counter', CounterItem, { ...key, ...item }, key);
export const decodeHold = (item: Item, key: Item): HoldItem => decodeItem('spend hold', HoldItem, item, key);
