import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SerpRow } from '@cm/contract';
import { batchGet, batchWrite } from './batch';
import { keywordUnique, serpKey } from './keys';
import { decodeSerpRow } from './serps.decoder';

/** Stored SERP competition rows, one per (site, locale, keyword). */
export class SerpStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, row: SerpRow): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { ...serpKey(siteId, row.locale, row.keyword), ...row } }),
    );
  }

  /** Stores many rows of a site, 25 to a request. */
  async putMany(siteId: number, rows: readonly SerpRow[]): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      rows.map((row) => ({ PutRequest: { Item: { ...serpKey(siteId, row.locale, row.keyword), ...row } } })),
    );
  }

  async get(siteId: number, locale: string, keyword: string): Promise<SerpRow | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: serpKey(siteId, locale, keyword) }));
    return out.Item ? decodeSerpRow(out.Item) : null;
  }

  /** The stored rows of these (locale, keyword) pairs, in batched reads. */
  async getMany(siteId: number, wanted: ReadonlyArray<{ locale: string; keyword: string }>): Promise<SerpRow[]> {
    const keys = new Map(wanted.map((w) => [keywordUnique(w.locale, w.keyword), serpKey(siteId, w.locale, w.keyword)]));
    const items = await batchGet(this.db, this.table, [...keys.values()]);
    return items.map(decodeSerpRow);
  }
}
