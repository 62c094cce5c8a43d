import * as z from 'zod/mini';
import { decodeItem, inStoredOrder } from './decode';

/* The cm_* tables' items: a row (under `row`, beside its keys), and a unique value's claim. */

const StoredRowSchema = inStoredOrder({ id: z.int(), created_at: z.string(), updated_at: z.string() });
/** A stored row of a cm_* table: its fields plus `id`, `created_at`, `updated_at`. */
export type StoredRow = z.infer<typeof StoredRowSchema>;

const RowItem = z.looseObject({ row: StoredRowSchema });
/** Which row holds a unique value, and since when (a claim whose row never appeared is taken over). */
const ClaimItem = z.looseObject({ id: z.int(), claimed_at: z.string() });

type Item = Record<string, unknown>;

export const decodeRow = (item: Item, key?: Item): StoredRow => decodeItem('row', RowItem, item, key).row;
export const decodeClaim = (item: Item, key: Item) => decodeItem('unique claim', ClaimItem, item, key);
