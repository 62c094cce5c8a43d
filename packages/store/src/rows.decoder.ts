import * as z from 'zod/mini';
import { STORED_ROW_SHAPES, type RowOf, type TableName } from '@cm/contract';
import { decodeItem, inStoredOrder } from './decode';

/* The cm_* tables' items: a row (under `row`, beside its keys), and a unique value's claim. */

/** A row of any table: what every row has, and its other fields. */
export type StoredRow = { id: number; created_at: string; updated_at: string } & Record<string, unknown>;

/** Which row owns a unique value, and since when (a claim whose row never appeared is taken over). */
const ClaimItem = z.looseObject({ id: z.int(), claimed_at: z.string() });
const RowItem = z.looseObject({ row: z.unknown() });

type Item = Record<string, unknown>;

/** A table's row decoder, its schema made once; a row keeps its fields in the order the table returns them. */
function rowDecoder<Shape extends z.core.$ZodLooseShape>(table: TableName, shape: Shape) {
  const schema = inStoredOrder(shape);
  return (row: unknown, key?: Item) => decodeItem(`${table} row`, schema, row, key);
}

type RowDecoders = { [T in TableName]: (row: unknown, key?: Item) => RowOf<T> };
/** One decoder per table, so that a table's name picks its row type (a mapped type indexed by it). */
const ROW_DECODERS: RowDecoders = {
  cm_topics: rowDecoder('cm_topics', STORED_ROW_SHAPES.cm_topics),
  cm_pages: rowDecoder('cm_pages', STORED_ROW_SHAPES.cm_pages),
  cm_keywords: rowDecoder('cm_keywords', STORED_ROW_SHAPES.cm_keywords),
  cm_topic_keywords: rowDecoder('cm_topic_keywords', STORED_ROW_SHAPES.cm_topic_keywords),
  cm_competitors: rowDecoder('cm_competitors', STORED_ROW_SHAPES.cm_competitors),
};

/** The row of a table's item. */
export function decodeRow<T extends TableName>(table: T, item: Item, key?: Item): RowOf<T> {
  const { row } = decodeItem('row', RowItem, item, key);
  const decode: RowDecoders[T] = ROW_DECODERS[table];
  return decode(row, key ?? { pk: item.pk, sk: item.sk });
}

/** A row about to be stored, checked against its table's shape first: nothing that could not be read back is written. */
export function checkedRow<T extends TableName>(table: T, row: Item): RowOf<T> {
  const decode: RowDecoders[T] = ROW_DECODERS[table];
  return decode(row);
}

export const decodeClaim = (item: Item, key: Item) => decodeItem('unique claim', ClaimItem, item, key);
