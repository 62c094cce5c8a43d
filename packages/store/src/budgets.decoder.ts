import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* Budget items: a site's limits, and spend counters with their windows' counts and reservations. */

const Limit = z.optional(z.nullable(z.number()));
const BudgetItem = z.looseObject({ daily_usd: Limit, monthly_usd: Limit, confirm_above_usd: Limit });

/** A reservation on a counter item: its estimate, the windows (attribute prefixes) it counts in, and until when (epoch ms) its lease runs. */
const StoredHold = z.object({ e: z.number(), w: z.array(z.string()), x: z.number() });
export type StoredHold = z.infer<typeof StoredHold>;

/** Besides its key, a counter item holds only counts (`<window>_<part>`, `expires_at`) and holds (`hold#<id>`). */
const CounterItem = z.catchall(z.object({ pk: z.string(), sk: z.string() }), z.union([z.number(), StoredHold]));
export type CounterItem = z.infer<typeof CounterItem>;

type Item = Record<string, unknown>;

export const decodeBudget = (item: Item, key: Item) => decodeItem('budget', BudgetItem, item, key);
export const decodeCounter = (item: Item, key: Item): CounterItem =>
  decodeItem('spend counter', CounterItem, { ...key, ...item }, key);
