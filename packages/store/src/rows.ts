import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { RowOf, TableName } from '@cm/contract';
import { Bug } from '@cm/core';
import { batchGet, batchWrite, mapLimit } from './batch';
import { conditionalUpdate, conditionalWrite } from './conditional';
import { Update } from './update';
import { decodeCursorPositions, encodeCursor, ONE_POSITION } from './cursor';
import { InvalidCursor, RowConflict } from './errors';
import { checkedRow, decodeClaim, decodeRow, type StoredRow } from './rows.decoder';
import { decodeSequence } from './sites.decoder';
import { ROWS_BY_FIRST_FIELD, ROWS_BY_SECOND_FIELD, type TableIndex } from './table';
import {
  indexStart,
  keywordUnique,
  rowIndexPartition,
  rowKey,
  rowPartition,
  rowSk,
  tableSequenceKey,
  uniqueKey,
  type Key,
} from './keys';

type Fields = Record<string, unknown>;

interface TableSpec {
  /** Fields with an index, so rows with a given value are one Query (at most two: gsi3, gsi4). */
  indexed: readonly string[];
  /** The value that must be unique among the site's rows of the table. */
  unique?: (row: Fields) => string;
}

/** How each table is indexed and what is unique in it. */
const TABLE_SPECS: Record<TableName, TableSpec> = {
  cm_topics: { indexed: [] },
  cm_pages: { indexed: ['topic_id', 'published_id'] },
  cm_keywords: { indexed: ['page_id'], unique: (row) => keywordUnique(String(row.locale), String(row.keyword)) },
  cm_topic_keywords: {
    indexed: ['topic_id', 'keyword_id'],
    unique: (row) => `${String(row.topic_id)}#${String(row.keyword_id)}`,
  },
  cm_competitors: { indexed: [], unique: (row) => String(row.domain) },
};

const ROW_INDEXES = [ROWS_BY_FIRST_FIELD, ROWS_BY_SECOND_FIELD] as const;

/** The index of a table's indexed field; undefined for a field without one. */
const indexOf = (table: TableName, field: string) => {
  const position = TABLE_SPECS[table].indexed.indexOf(field);
  return position < 0 ? undefined : ROW_INDEXES[position];
};

/** A uniqueness item whose row never appeared is taken over after this long (a writer died between the two writes). */
const ORPHAN_AFTER_MS = 60_000;

/** Pages of the table read at most by one select before it answers with a cursor (filters may skip rows). */
const SELECT_MAX_PAGES = 10;

export interface RowPage<T extends TableName = TableName> {
  rows: RowOf<T>[];
  next_cursor: string | null;
}

const isIndexable = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * The cm_* tables the db tools expose. Every row is scoped to a site by its partition; ids come from
 * an atomic per-site sequence; uniqueness rests on one conditional put of a uniqueness item per row.
 */
export class RowStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** `count` new ids of a site's table, reserved in one atomic write: the first of them (the others follow it). */
  private async reserveIds(siteId: number, table: TableName, count: number): Promise<number> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: tableSequenceKey(siteId, table),
        ...new Update().add('value', count, { valueKey: 'n' }).input(),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const last = decodeSequence(out.Attributes ?? {}, tableSequenceKey(siteId, table)).value;
    return last - count + 1;
  }

  private item(siteId: number, table: TableName, row: StoredRow): Record<string, unknown> {
    const item: Record<string, unknown> = { ...rowKey(siteId, table, row.id), table, row };
    TABLE_SPECS[table].indexed.forEach((field) => {
      const value = row[field];
      const index = indexOf(table, field);
      if (!index || !isIndexable(value)) return;
      item[index.partitionKey] = rowIndexPartition(siteId, table, field, value);
      item[index.sortKey] = rowSk(row.id);
    });
    return item;
  }

  /**
   * Takes a unique value for `id`; returns the id of the row that owns it when that is another.
   * An owner whose row never appeared (its writer died between the two writes) is taken over.
   */
  private async claim(
    siteId: number,
    table: TableName,
    value: string,
    id: number,
    now: string,
  ): Promise<number | null> {
    const key = uniqueKey(siteId, table, value);
    if (await this.putClaim(key, id, now, null)) return null;
    const found = (await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item;
    if (!found) return this.claim(siteId, table, value, id, now);
    const owner = decodeClaim(found, key);
    const ownerId = owner.id;
    if (await this.get(siteId, table, ownerId)) return ownerId;
    if (Date.parse(now) - Date.parse(owner.claimed_at) < ORPHAN_AFTER_MS) return ownerId; // still being written
    return (await this.putClaim(key, id, now, ownerId)) ? null : this.claim(siteId, table, value, id, now);
  }

  /** One conditional put of a uniqueness item: where none is, or over the owner `previous`. */
  private async putClaim(key: Key, id: number, now: string, previous: number | null): Promise<boolean> {
    const put = new PutCommand({
      TableName: this.table,
      Item: { ...key, id, claimed_at: now },
      ...(previous === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#id = :old',
            ExpressionAttributeNames: { '#id': 'id' },
            ExpressionAttributeValues: { ':old': previous },
          }),
    });
    return (await conditionalWrite(this.db, put)).ok;
  }

  /**
   * Inserts rows: ids reserved in one write, unique values claimed one conditional put each, rows
   * written in batches. A row whose unique value another row owns is not written; it is returned
   * in `conflicts` with its position in `rows` and that row's id.
   */
  async insertMany<T extends TableName>(
    siteId: number,
    table: T,
    rows: readonly Fields[],
    now = new Date().toISOString(),
  ): Promise<{ created: RowOf<T>[]; conflicts: Array<{ index: number; fields: Fields; existingId: number }> }> {
    if (rows.length === 0) return { created: [], conflicts: [] };
    const firstId = await this.reserveIds(siteId, table, rows.length);
    const unique = TABLE_SPECS[table].unique;
    const outcomes = await mapLimit(rows, 16, async (fields, i) => {
      const stored = checkedRow(table, { ...fields, id: firstId + i, created_at: now, updated_at: now });
      const existingId = unique ? await this.claim(siteId, table, unique(stored), stored.id, now) : null;
      return { index: i, stored, fields, existingId };
    });
    const created = outcomes.filter((o) => o.existingId === null).map((o) => o.stored);
    await batchWrite(
      this.db,
      this.table,
      created.map((row) => ({ PutRequest: { Item: this.item(siteId, table, row) } })),
    );
    return {
      created,
      conflicts: outcomes.flatMap((o) =>
        o.existingId === null ? [] : [{ index: o.index, fields: o.fields, existingId: o.existingId }],
      ),
    };
  }

  /** Inserts one row, or throws RowConflict when its unique value is taken. */
  async insert<T extends TableName>(
    siteId: number,
    table: T,
    fields: Fields,
    now = new Date().toISOString(),
  ): Promise<RowOf<T>> {
    const {
      created: [row],
      conflicts: [conflict],
    } = await this.insertMany(siteId, table, [fields], now);
    if (conflict) throw new RowConflict(table, conflict.existingId);
    if (!row) throw new Bug(`${table}: the insert stored no row and met no conflict`);
    return row;
  }

  async get<T extends TableName>(siteId: number, table: T, id: number): Promise<RowOf<T> | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: rowKey(siteId, table, id) }));
    return out.Item ? decodeRow(table, out.Item) : null;
  }

  /** Rows by id, in batched reads; missing ids are left out. */
  async getMany<T extends TableName>(siteId: number, table: T, ids: readonly number[]): Promise<Map<number, RowOf<T>>> {
    const unique = [...new Set(ids)];
    const items = await batchGet(
      this.db,
      this.table,
      unique.map((id) => rowKey(siteId, table, id)),
    );
    return new Map(items.map((item) => decodeRow(table, item)).map((row) => [row.id, row]));
  }

  /** Ids of the rows that own each unique value, in batched reads. */
  async idsByUnique(siteId: number, table: TableName, values: readonly string[]): Promise<Map<string, number>> {
    const items = await batchGet(
      this.db,
      this.table,
      [...new Set(values)].map((v) => uniqueKey(siteId, table, v)),
    );
    return new Map(items.map((item) => [String(item.sk), Number(item.id)]));
  }

  /** Sets fields of an existing row; null when there is no such row. Unique fields never change here. */
  async update<T extends TableName>(
    siteId: number,
    table: T,
    id: number,
    changes: Fields,
    now = new Date().toISOString(),
  ): Promise<RowOf<T> | null> {
    const update = new Update().set(['row', 'updated_at'], now, { valueKey: 'now' });
    // Values by position: a field's name may spell another's placeholder.
    Object.entries(changes).forEach(([field, value], i) => {
      update.set(['row', field], value, { valueKey: `v${i}` });
      const gsi = indexOf(table, field);
      if (!gsi) return;
      if (isIndexable(value))
        update
          .set(gsi.partitionKey, rowIndexPartition(siteId, table, field, value), { valueKey: `ix${i}` })
          .set(gsi.sortKey, rowSk(id), { valueKey: `is${i}` });
      else update.remove(gsi.partitionKey, gsi.sortKey);
    });
    const key = rowKey(siteId, table, id);
    const written = await conditionalUpdate(this.db, this.table, key, update.when(update.exists('pk')), {
      returns: 'ALL_NEW',
      decode: (attributes: Record<string, unknown>) => decodeRow(table, attributes, key),
    });
    return written.ok ? written.attributes : null;
  }

  /** Deletes a row and frees its unique value; null when there was no such row. */
  async delete<T extends TableName>(siteId: number, table: T, id: number): Promise<RowOf<T> | null> {
    const out = await this.db.send(
      new DeleteCommand({ TableName: this.table, Key: rowKey(siteId, table, id), ReturnValues: 'ALL_OLD' }),
    );
    if (!out.Attributes) return null;
    const row = decodeRow(table, out.Attributes);
    const unique = TABLE_SPECS[table].unique;
    if (unique) {
      // Refused when another row owns the value now.
      await conditionalWrite(
        this.db,
        new DeleteCommand({
          TableName: this.table,
          Key: uniqueKey(siteId, table, unique(row)),
          ConditionExpression: '#id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': id },
        }),
      );
    }
    return row;
  }

  /** Every row whose `field` has `value`: by its index when the field has one, else filtering the table's rows. */
  async byField<T extends TableName>(
    siteId: number,
    table: T,
    field: string,
    value: string | number | boolean,
  ): Promise<RowOf<T>[]> {
    const rows: RowOf<T>[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.select(siteId, table, { [field]: value }, 1000, cursor);
      rows.push(...page.rows);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return rows;
  }

  /**
   * Rows by id, filtered by equality on fields. A filter on an indexed field reads that index; other
   * filters read the table's rows a page at a time and answer with a cursor where they stopped.
   */
  async select<T extends TableName>(
    siteId: number,
    table: T,
    where: Fields,
    limit: number,
    cursor?: string,
  ): Promise<RowPage<T>> {
    const indexField = TABLE_SPECS[table].indexed.find((field) => isIndexable(where[field])) ?? null;
    const index = indexField === null ? null : (indexOf(table, indexField) ?? null);

    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const filters: string[] = [];
    Object.entries(where).forEach(([field, value], i) => {
      if (field === indexField) return;
      names['#row'] = 'row';
      names[`#w${i}`] = field;
      if (value === null) {
        values[`:w${i}`] = null;
        filters.push(`(attribute_not_exists(#row.#w${i}) OR #row.#w${i} = :w${i})`);
      } else {
        values[`:w${i}`] = value;
        filters.push(`#row.#w${i} = :w${i}`);
      }
    });
    const pk =
      indexField === null
        ? rowPartition(siteId, table)
        : rowIndexPartition(siteId, table, indexField, where[indexField]);
    values[':pk'] = pk;
    const query: QueryCommandInput = {
      TableName: this.table,
      ...(index ? { IndexName: index.name } : {}),
      KeyConditionExpression: `${index ? index.partitionKey : 'pk'} = :pk`,
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
      ExpressionAttributeValues: values,
    };

    const rows: RowOf<T>[] = [];
    let start: Record<string, unknown> | undefined = cursor
      ? this.startOf(cursor, siteId, table, index, pk)
      : undefined;
    for (let page = 0; page < SELECT_MAX_PAGES; page++) {
      const out = await this.db.send(
        new QueryCommand({ ...query, Limit: limit - rows.length, ExclusiveStartKey: start }),
      );
      rows.push(...(out.Items ?? []).map((item) => decodeRow(table, item)));
      start = out.LastEvaluatedKey;
      if (!start || rows.length >= limit) break;
    }
    return { rows, next_cursor: start ? encodeCursor([String(start.sk)]) : null };
  }

  private startOf(cursor: string, siteId: number, table: TableName, index: TableIndex | null, pk: string) {
    const [sk] = decodeCursorPositions(cursor, ONE_POSITION);
    if (!/^\d{12}$/.test(sk)) throw new InvalidCursor();
    if (!index) return { pk, sk };
    // Index items keep their id as both sort keys.
    return indexStart(index, pk, sk, { pk: rowPartition(siteId, table), sk });
  }
}
