import { GetCommand, QueryCommand, type DynamoDBDocumentClient, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PageType } from '@cm/contract';
import { minuteOf, type LiveState, type PageSchedule, type ScheduledChange } from '@cm/core';
import { batchWrite } from './batch';
import { conditionalUpdate } from './conditional';
import { pageKey, scheduleCursorKey, scheduledChangeKey, scheduleMinutePartition } from './keys';
import { setLiveState } from './page-item';
import { stateWritten } from './page-live';
import type { NotifyApplied } from './page-types';
import { decodeNotifiedOld } from './pages.decoder';
import { decodeScheduleCursor, decodeScheduledChange } from './schedules.decoder';
import { Update } from './update';

/*
 * Pages on a schedule (docs/api/publishing.md#pages-on-a-schedule): a change is an item in the partition
 * of the UTC minute it is due in, written with the publish that made it and naming that publish's
 * version; the sweep reads the minutes due, applies each change that still holds, and removes it.
 */

/** A scheduled change keeps its item this long past its time if no sweep ever removes it (TTL). */
const KEPT_PAST_DUE_S = 7 * 86_400;

/** A change due, as its item names it. */
export interface DueChange {
  siteId: number;
  type: PageType;
  id: string;
  change: ScheduledChange;
  /** When it is due (the page's `publish_at` or `unpublish_at` as its publish set it). */
  at: string;
  /** The publish that scheduled it: the change holds only while the page is still at it. */
  version: string;
  key: { pk: string; sk: string };
}

/** The page attribute that holds a change's time. */
const timeAttribute = (change: ScheduledChange) => (change === 'publish' ? 'publish_at' : 'unpublish_at');

/** The items of a publish's schedule (one per change it has), each naming the publish's `version`. */
function scheduledChangeItems(
  page: { siteId: number; type: PageType; id: string; version: string },
  schedule: PageSchedule,
): NonNullable<PutCommandInput['Item']>[] {
  const changes = (['publish', 'unpublish'] as const).flatMap((change) => {
    const at = schedule[timeAttribute(change)];
    return at === null ? [] : [{ change, at }];
  });
  return changes.map(({ change, at }) => ({
    ...scheduledChangeKey(minuteOf(at), page.siteId, page.type, page.id, change),
    site_id: page.siteId,
    type: page.type,
    id: page.id,
    change,
    at,
    version: page.version,
    expires_at: Math.floor(Date.parse(at) / 1000) + KEPT_PAST_DUE_S,
  }));
}

/** Writes a publish's scheduled changes (one BatchWriteItem: two items at most). */
export async function writeScheduledChanges(
  db: DynamoDBDocumentClient,
  table: string,
  page: { siteId: number; type: PageType; id: string; version: string },
  schedule: PageSchedule,
): Promise<void> {
  const items = scheduledChangeItems(page, schedule);
  await batchWrite(
    db,
    table,
    items.map((Item) => ({ PutRequest: { Item } })),
  );
}

export class ScheduleStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The changes due in `minute`, the first `limit`; `more` when the minute has others after them. */
  async due(minute: string, limit: number): Promise<{ changes: DueChange[]; more: boolean }> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': scheduleMinutePartition(minute) },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    const changes = (out.Items ?? []).map((item) => {
      const decoded = decodeScheduledChange(item);
      return {
        siteId: decoded.site_id,
        type: decoded.type,
        id: decoded.id,
        change: decoded.change,
        at: decoded.at,
        version: decoded.version,
        key: { pk: decoded.pk, sk: decoded.sk },
      };
    });
    return { changes, more: out.LastEvaluatedKey !== undefined };
  }

  /**
   * Sets the page's state `next` at `at`, as a notify of it would (its indexes follow, a relink is marked
   * owed unless one is), and its sitemap lastmod; in one conditional write that holds only while the page
   * is at the publish that scheduled the change and still has it due: a republish or a notify since wins,
   * and a change applied once is never applied again (`stale`).
   */
  async apply(due: DueChange, next: LiveState, at: string): Promise<NotifyApplied | 'stale'> {
    const page = { siteId: due.siteId, type: due.type, id: due.id };
    const field = timeAttribute(due.change);
    const update = setLiveState(new Update(), page, next, at)
      .set('notified_at', at)
      .set('visible_at', at, { valueKey: 'notified_at' })
      .setIfAbsent('relink_pending', at, { valueKey: 'notified_at' })
      .remove(field);
    update.when(`${update.name('version')} = ${update.value('version', due.version)}`);
    update.when(`${update.name(field)} = ${update.value('due', due.at)}`);
    const key = pageKey(due.siteId, due.type, due.id);
    const written = await conditionalUpdate(this.db, this.table, key, update, {
      returns: 'UPDATED_OLD',
      decode: (attributes: Record<string, unknown>) => decodeNotifiedOld(attributes, key),
    });
    return written.ok ? stateWritten(written.attributes, true, at) : 'stale';
  }

  /** The change is done (applied, or it no longer held): its item goes (as writers remove items, in a batch write). */
  async done(due: DueChange): Promise<void> {
    await batchWrite(this.db, this.table, [{ DeleteRequest: { Key: due.key } }]);
  }

  /** The last minute the sweep finished, or null before its first run. */
  async sweptThrough(): Promise<string | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: scheduleCursorKey, ConsistentRead: true }),
    );
    return out.Item ? decodeScheduleCursor(out.Item).minute : null;
  }

  /** The sweep finished `minute` (and every one before it); a sweep that finished a later one meanwhile keeps its. */
  async sweptTo(minute: string): Promise<void> {
    const update = new Update().set('minute', minute);
    update.when(`${update.absent('minute')} OR ${update.name('minute')} < ${update.value('minute', minute)}`);
    await conditionalUpdate(this.db, this.table, scheduleCursorKey, update);
  }
}
