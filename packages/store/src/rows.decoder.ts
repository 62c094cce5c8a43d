import * as z from 'zod/mini';
import { STORED_ROW_SHAPES, type RowOf, type TableName } from '@cm/contract';
import { decodeItem, inStoredOrder } from './decode';

/* The cm_* tables' items: a row (under `row`, beside its keys), and a unique value's claim. */

/** A row of any table: what every row has, and its other fields. */
export type StoredRow = { id: number; created_at: string; updated_at: string } & Record<string, unknown>;

/** Each table's row schema, made once: a row keeps its fields in their stored order (replies show them so). */
const ROW_SCHEMAS = {
  cm_topics: inStoredOrder(STORED_ROW_SHAPES.cm_topics),
  cm_pages: inStoredOrder(STORED_ROW_SHAPES.cm_pages),
  cm_keywords: inStoredOrder(STORED_ROW_SHAPES.cm_keywords),
  cm_topic_keywords: inStoredOrder(STORED_ROW_SHAPES.cm_topic_keywords),
  cm_competitors: inStoredOrder(STORED_ROW_SHAPES.cm_competitors),
} satisfies Record<TableName, z.ZodMiniType>;

/** A stored row of table `T`: the contract's RowOf<T>, which the table's schema here decodes. */
export type TableRow<T extends TableName> = RowOf<T>;

/** Which row holds a unique value, and since when (a claim whose row never appeared is taken over). */
const ClaimItem = z.looseObject({ id: z.int(), claimed_at: z.string() });
const RowItem = z.looseObject({ row: z.unknown() });

type Item = Record<string, unknown>;

type RowDecoders = { [T in TableName]: (row: unknown, key?: Item) => TableRow<T> };
/** One decoder per table, so that a table's name picks its row type (a mapped type indexed by it). */
const ROW_DECODERS: RowDecoders = {
  cm_topics: (row, key) => decodeItem('cm_topics row', ROW_SCHEMAS.cm_topics, row, key),
  cm_pages: (row, key) => decodeItem('cm_pages row', ROW_SCHEMAS.cm_pages, row, key),
  cm_keywords: (row, key) => decodeItem('cm_keywords row', ROW_SCHEMAS.cm_keywords, row, key),
  cm_topic_keywords: (row, key) => decodeItem('cm_topic_keywords row', ROW_SCHEMAS.cm_topic_keywords, row, key),
  cm_competitors: (row, key) => decodeItem('cm_competitors row', ROW_SCHEMAS.cm_competitors, row, key),
};

/** The row of a table's item. */
export function decodeRow<T extends TableName>(table: T, item: Item, key?: Item): TableRow<T> {
  const { row } = decodeItem('row', RowItem, item, key);
  const decode: RowDecoders[T] = ROW_DECODERS[table];
  return decode(row, key ?? { pk: item.pk, sk: item.sk });
}

/** A row about to be stored, checked against its table's shape first: nothing that could not be read back is written. */
export function checkedRow<T extends TableName>(table: T, row: Item): TableRow<T> {
  const decode: RowDecoders[T] = ROW_DECODERS[table];
  return decode(row);
}

export const decodeClaim = (item: Item, key: Item) => decodeItem('unique claim', ClaimItem, item, key);
