import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { batchGet, batchWrite } from './batch';
import { giveBackClaim, takeClaim } from './claims';
import { decodeItem } from './decode';
import { sharedClaimKey, sharedKey, type Key } from './keys';
import { decodeSharedItem } from './shared.decoder';

/*
 * The shared cache of public data: what a provider answers alike for every site, kept a few days per
 * datum and UTC day, so the second site that needs it that day makes no provider call. It holds the
 * provider's answer only; whatever a site makes of it (its positions, rows, research records) stays
 * in the site's own items.
 */

/** What kind of public datum an item holds; its key names which one. */
export type SharedKind = 'keyword-metrics' | 'serp' | 'rank-serp' | 'backlink-numbers' | 'research';

/** One public datum on one UTC day (`yyyy-mm-dd`): `key` is its identity, such as `<locale>#<keyword>`. */
export interface SharedDatum {
  kind: SharedKind;
  key: string;
  day: string;
}

/** A provider's public answer as the cache keeps it. */
export interface Shared<T> {
  value: T;
  fetched_at: string;
  data_source: string;
}

/** How long an item or claim is kept after it is written, unless its writer says otherwise: the day, a late redelivery's day after it, and one more. */
const KEEP_SECONDS = 3 * 86_400;

/** A SERP's identity: the same for a live pull and a rank check of one keyword, locale, device and depth. */
export const serpIdentity = (serp: { locale: string; device: string; depth: number; keyword: string }): string =>
  `${serp.locale}#${serp.device}#${serp.depth}#${serp.keyword}`;

/** A datum's identity in a getMany answer. */
export const sharedId = (datum: SharedDatum): string => `${datum.kind}\n${datum.key}\n${datum.day}`;

const keyOf = (datum: SharedDatum): Key => sharedKey(datum.kind, datum.key, datum.day);
const itemId = (key: Key) => `${key.pk}\n${key.sk}`;
const expiresAt = (at: string, keepSeconds: number) => Math.floor(Date.parse(at) / 1000) + keepSeconds;

export class SharedDataStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The datum's answer of that day, or null: one GetItem. */
  async get<T>(datum: SharedDatum, schema: z.ZodMiniType<T>): Promise<Shared<T> | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keyOf(datum) }));
    return out.Item ? this.decode(out.Item, schema) : null;
  }

  /** The answers the cache has of these data, by `sharedId`: batched reads, 100 keys to a request. */
  async getMany<T>(data: readonly SharedDatum[], schema: z.ZodMiniType<T>): Promise<Map<string, Shared<T>>> {
    const wanted = new Map(data.map((datum) => [itemId(keyOf(datum)), datum]));
    const items = await batchGet(this.db, this.table, data.map(keyOf));
    const found = new Map<string, Shared<T>>();
    for (const item of items) {
      const datum = wanted.get(itemId({ pk: String(item.pk), sk: String(item.sk) }));
      if (datum) found.set(sharedId(datum), this.decode(item, schema));
    }
    return found;
  }

  /** Keeps a datum's answer of its day (a later answer the same day replaces it). */
  async put<T>(datum: SharedDatum, shared: Shared<T>, keepSeconds = KEEP_SECONDS): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: this.item(datum, shared, keepSeconds) }));
  }

  /** Keeps many answers, 25 to a request. */
  async putMany<T>(
    entries: ReadonlyArray<{ datum: SharedDatum; shared: Shared<T> }>,
    keepSeconds = KEEP_SECONDS,
  ): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      entries.map(({ datum, shared }) => ({ PutRequest: { Item: this.item(datum, shared, keepSeconds) } })),
    );
  }

  /**
   * Claims a datum's paid work of its day for `runId` with one conditional put: false when another run
   * owns it (it paid, or pays now). A claim given back is taken again.
   */
  async claim(datum: SharedDatum, runId: string, now: Date): Promise<boolean> {
    return takeClaim(this.db, this.table, {
      ...sharedClaimKey(datum.kind, datum.key, datum.day),
      run_id: runId,
      claimed_at: now.toISOString(),
      expires_at: expiresAt(now.toISOString(), KEEP_SECONDS),
    });
  }

  /** Gives a claim up, so another run may take the work: only while `runId` still owns it. */
  async giveBack(datum: SharedDatum, runId: string, now: Date): Promise<void> {
    await giveBackClaim(this.db, this.table, sharedClaimKey(datum.kind, datum.key, datum.day), runId, now);
  }

  private item<T>(datum: SharedDatum, shared: Shared<T>, keepSeconds: number) {
    return {
      ...keyOf(datum),
      value: shared.value,
      fetched_at: shared.fetched_at,
      data_source: shared.data_source,
      expires_at: expiresAt(shared.fetched_at, keepSeconds),
    };
  }

  private decode<T>(item: Record<string, unknown>, schema: z.ZodMiniType<T>): Shared<T> {
    const stored = decodeSharedItem(item);
    return {
      value: decodeItem('shared datum', schema, stored.value, item),
      fetched_at: stored.fetched_at,
      data_source: stored.data_source,
    };
  }
}
