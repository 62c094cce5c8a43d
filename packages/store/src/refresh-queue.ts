import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { PageType, RefreshEntry } from '@cm/contract';
import { queryAll } from './batch';
import { conditionalWrite } from './conditional';
import { decodeCursorPositions, encodeCursor, ONE_POSITION } from './cursor';
import { InvalidCursor } from './errors';
import {
  isRefreshEntrySk,
  REFRESH_ENTRY_PREFIX,
  refreshEntrySk,
  refreshPointerKey,
  refreshQueuePartition,
} from './keys';
import { decodeRefreshEntry, decodeRefreshPointer } from './refresh-queue.decoder';

/*
 * A site's refresh queue (docs/api/search-console.md#traffic-and-decay): one entry item per flagged page,
 * its sort key its clicks at risk inverted, so a Query lists the queue most clicks at risk first with no
 * scan and no item that grows; and one pointer item per page naming its entry, so a re-flag at other
 * clicks replaces the entry. Without transactions (dynalite has none, as budgets.ts says), a re-flag
 * puts the new entry, moves the pointer, then deletes the old entry: a crash between them leaves an entry
 * no pointer names, which the next evaluation, reading the whole queue, deletes (`orphans`).
 */

type PageRef = { type: PageType; id: string };

/**
 * A write's condition: no item there, or an entry not being measured (not marked refreshed, or measured
 * already): a refresh awaiting its measure is never written back to null.
 */
const UNREFRESHED = {
  ConditionExpression:
    'attribute_not_exists(pk) OR attribute_type(entry.refreshed_at, :null) OR NOT attribute_type(entry.measured, :null)',
  ExpressionAttributeValues: { ':null': 'NULL' },
};

/** An entry as stored: its sort key (its place in the queue) and itself. */
export interface QueuedEntry {
  sk: string;
  entry: RefreshEntry;
}

export class RefreshQueueStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private async pointer(siteId: number, page: PageRef): Promise<string | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: refreshPointerKey(siteId, page.type, page.id) }),
    );
    return out.Item ? decodeRefreshPointer(out.Item).entry_sk : null;
  }

  /**
   * Puts a page's entry, replacing the one it had: one GetItem of its pointer, then a conditional PutItem
   * of the entry, a conditional PutItem of the pointer and a conditional DeleteItem of the old entry when
   * its place changed (a flag of the page at the same time wins the pointer: this entry is the one
   * deleted). A refresh is never undone: an entry a publish marked refreshed since the caller read the
   * queue is neither overwritten nor deleted, and this flag is then dropped (its pointer moved back).
   */
  async flag(siteId: number, entry: RefreshEntry): Promise<void> {
    const pk = refreshQueuePartition(siteId);
    const sk = refreshEntrySk(entry.clicks_at_risk, entry.page.type, entry.page.id);
    const before = await this.pointer(siteId, entry.page);
    const put = await conditionalWrite(
      this.db,
      new PutCommand({ TableName: this.table, Item: { pk, sk, entry }, ...UNREFRESHED }),
    );
    if (!put.ok) return;
    const moved = await this.point(siteId, entry.page, sk, before);
    // Flagged at the same place, the entry was replaced in place; lost to another flag, this entry is the stale one.
    let stale: string | null;
    if (moved) stale = before === sk ? null : before;
    else stale = (await this.pointer(siteId, entry.page)) === sk ? null : sk;
    if (stale === null) return;
    const dropped = await conditionalWrite(
      this.db,
      new DeleteCommand({ TableName: this.table, Key: { pk, sk: stale }, ...UNREFRESHED }),
    );
    // The old entry was refreshed between the read and the move: it stays the page's, this flag goes.
    if (!dropped.ok && stale === before && (await this.point(siteId, entry.page, stale, sk)))
      await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk } }));
  }

  /** Points the page's pointer at `sk` when it still names `from` (null: when it has none); whether it did. */
  private async point(siteId: number, page: PageRef, sk: string, from: string | null): Promise<boolean> {
    const written = await conditionalWrite(
      this.db,
      new PutCommand({
        TableName: this.table,
        Item: { ...refreshPointerKey(siteId, page.type, page.id), entry_sk: sk },
        ConditionExpression: from === null ? 'attribute_not_exists(pk)' : 'entry_sk = :from',
        ...(from === null ? {} : { ExpressionAttributeValues: { ':from': from } }),
      }),
    );
    return written.ok;
  }

  /**
   * The whole queue, most clicks at risk first, and the entries no pointer names (left by a re-flag cut
   * short): one Query of the site's queue partition (a page per MB), bounded by its flagged pages.
   */
  async all(siteId: number): Promise<{ entries: QueuedEntry[]; orphans: string[] }> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': refreshQueuePartition(siteId) },
    });
    const named = new Set(
      items
        .filter((item) => !String(item.sk).startsWith(REFRESH_ENTRY_PREFIX))
        .map((item) => decodeRefreshPointer(item).entry_sk),
    );
    const entries = items.filter((item) => String(item.sk).startsWith(REFRESH_ENTRY_PREFIX)).map(decodeRefreshEntry);
    return {
      entries: entries.filter((e) => named.has(e.sk)).map(({ sk, entry }) => ({ sk, entry })),
      orphans: entries.filter((e) => !named.has(e.sk)).map((e) => e.sk),
    };
  }

  /**
   * Takes a page that recovered without a refresh out of the queue: its entry deleted unless a publish
   * marked it refreshed meanwhile (then it stays, to be measured), then its pointer if it still names it.
   */
  async dropRecovered(siteId: number, page: PageRef, sk: string): Promise<void> {
    const pk = refreshQueuePartition(siteId);
    const dropped = await conditionalWrite(
      this.db,
      new DeleteCommand({
        TableName: this.table,
        Key: { pk, sk },
        ConditionExpression: 'attribute_type(entry.refreshed_at, :null) AND attribute_type(entry.measured, :null)',
        ExpressionAttributeValues: { ':null': 'NULL' },
      }),
    );
    if (!dropped.ok) return;
    await conditionalWrite(
      this.db,
      new DeleteCommand({
        TableName: this.table,
        Key: refreshPointerKey(siteId, page.type, page.id),
        ConditionExpression: 'entry_sk = :sk',
        ExpressionAttributeValues: { ':sk': sk },
      }),
    );
  }

  /** Deletes entries no pointer names. */
  async dropOrphans(siteId: number, orphans: readonly string[]): Promise<void> {
    const pk = refreshQueuePartition(siteId);
    for (const sk of orphans) await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk } }));
  }

  /** A page of the queue, most clicks at risk first: one Query of `limit` entries after the cursor's. */
  async list(
    siteId: number,
    options: { limit: number; cursor?: string },
  ): Promise<{ entries: RefreshEntry[]; next_cursor: string | null }> {
    const pk = refreshQueuePartition(siteId);
    const after = options.cursor === undefined ? undefined : decodeCursorPositions(options.cursor, ONE_POSITION)[0];
    // A position outside the queue's entries would make DynamoDB refuse the Query (a 500): no cursor of ours.
    if (after !== undefined && !isRefreshEntrySk(after)) throw new InvalidCursor();
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entries)',
        ExpressionAttributeValues: { ':pk': pk, ':entries': REFRESH_ENTRY_PREFIX },
        Limit: options.limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: after } }),
      }),
    );
    const last = out.LastEvaluatedKey;
    return {
      entries: (out.Items ?? []).map((item) => decodeRefreshEntry(item).entry),
      next_cursor: last ? encodeCursor([String(last.sk)]) : null,
    };
  }

  /**
   * Marks a flagged page refreshed at `at` (its live content changed), its measure then due 28 days later;
   * a page not in the queue is left alone: one GetItem of its pointer, and one UpdateItem of its entry
   * when it has one (again when a re-flag moved it meanwhile). A page refreshed again restarts its measure.
   */
  async markRefreshed(siteId: number, page: PageRef, at: string): Promise<boolean> {
    // A re-flag may move the entry between the pointer's read and the update: then the moved one is marked.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const sk = await this.pointer(siteId, page);
      if (sk === null) return false;
      const written = await conditionalWrite(
        this.db,
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: refreshQueuePartition(siteId), sk },
          UpdateExpression: 'SET entry.refreshed_at = :at, entry.measured = :none',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at, ':none': null },
        }),
      );
      if (written.ok) return true;
    }
    return false;
  }

  /** Records an entry's measure (its place unchanged). */
  async measure(siteId: number, sk: string, measured: NonNullable<RefreshEntry['measured']>): Promise<void> {
    // An entry a re-flag deleted meanwhile is measured no more.
    await conditionalWrite(
      this.db,
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: refreshQueuePartition(siteId), sk },
        UpdateExpression: 'SET entry.measured = :measured',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':measured': measured },
      }),
    );
  }
}
