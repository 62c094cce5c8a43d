import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PageState, PageStatus, PageType } from '@cm/contract';
import { batchGet, mapLimit } from './batch';
import { conditionalUpdate } from './conditional';
import { Update } from './update';
import { queryPageLinks, suppressedOfLinks } from './links';
import { decodeNotifiedOld, decodePageLiveState, decodeSuppressed, isPageItem } from './pages.decoder';
import { pageKey } from './keys';
import { byId, liveStateOf, notifyUpdate, suppressedLinksOf, suppressedSinceAttribute } from './page-item';
import type { CurrentLiveState, NotifyApplied } from './page-types';

/*
 * A page's live state and relink: what a notify changes of it, the relink it owes, and the links relink
 * keeps from readers.
 */

/** Pages whose link items a page list reads at once. */
const LINK_QUERIES_IN_FLIGHT = 10;

/**
 * What a write of the page's state at `at` answers of it (UPDATED_OLD of its status and relink mark):
 * the state before it (when it set one), and whether it marked a relink owed (none was).
 */
export function stateWritten(
  old: { status?: PageStatus; deleted?: boolean; relink_pending?: string },
  setState: boolean,
  at: string,
): NotifyApplied {
  const before = setState && old.status ? { status: old.status, deleted: old.deleted === true } : null;
  const relinkPendingBefore = old.relink_pending ?? null;
  return { before, relinkPendingBefore, markedAt: relinkPendingBefore === null ? at : null };
}

export class PageLiveStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** What notify decides on: the page's current live state and the newest notify applied to it. */
  async liveState(siteId: number, type: PageType, id: string): Promise<CurrentLiveState | null> {
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        ProjectionExpression: '#status, deleted, site_clock, relink_pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ConsistentRead: true,
      }),
    );
    return out.Item && isPageItem(out.Item)
      ? liveStateOf(decodePageLiveState(out.Item, pageKey(siteId, type, id)))
      : null;
  }

  /**
   * Applies a notify received at `receivedAt` in one write that needs no read, so concurrent notifies
   * never retry and never lose the latest: `next` (null: the state stays) and, when the notify was dated,
   * the site's clock, unless a later-dated notify was applied since the last publish (`stale`). The write
   * also marks a relink owed from `receivedAt` unless one is owed already; it answers the page's live
   * state before it and the relink that was owed before it, so the caller knows whether relink is due
   * (and takes the mark back when it is not). A notify that changes nothing (undated, no new state)
   * only reads.
   */
  async applyNotify(
    siteId: number,
    type: PageType,
    id: string,
    change: { next: { status: PageStatus; deleted: boolean } | null; receivedAt: string; siteClock: string | null },
  ): Promise<NotifyApplied | 'unmatched' | 'stale'> {
    const { next, receivedAt, siteClock } = change;
    if (next === null && siteClock === null) {
      const current = await this.liveState(siteId, type, id);
      return current ? { before: current, relinkPendingBefore: current.relink_pending, markedAt: null } : 'unmatched';
    }
    const key = pageKey(siteId, type, id);
    const written = await conditionalUpdate(this.db, this.table, key, notifyUpdate({ siteId, type, id }, change), {
      returns: 'UPDATED_OLD',
      decode: (attributes: Record<string, unknown>) => decodeNotifiedOld(attributes, key),
    });
    // Refused: no such page, or a later-dated notify was applied.
    if (!written.ok) return (await this.liveState(siteId, type, id)) ? 'stale' : 'unmatched';
    return stateWritten(written.attributes, next !== null, receivedAt);
  }

  /** Marks a relink as owed from `at`, before it is queued: a later call sees it if queueing failed. */
  async markRelinkPending(siteId: number, type: PageType, id: string, at: string): Promise<void> {
    const update = new Update().set('relink_pending', at, { valueKey: 'at' });
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        ...update.when(update.exists('pk')).input(),
      }),
    );
  }

  /** The relink owed since `at` is done, unless a newer one was asked for meanwhile. */
  async clearRelinkPending(siteId: number, type: PageType, id: string, at: string): Promise<void> {
    const update = new Update().remove('relink_pending');
    update.when(`${update.name('relink_pending')} = ${update.value('at', at)}`);
    await conditionalUpdate(this.db, this.table, pageKey(siteId, type, id), update);
  }

  /**
   * What readers see of the page changed at `at` (relink, a community answer): its sitemap entry's
   * lastmod, which only moves forward. Nothing when there is no such page.
   */
  async visibleChange(siteId: number, page: { type: PageType; id: string }, at: string): Promise<void> {
    const update = new Update().set('visible_at', at, { valueKey: 'at' });
    const visibleAt = update.name('visible_at');
    update.when(
      `${update.exists('status')} AND (${update.absent('visible_at')} OR ${visibleAt} < ${update.value('at', at)})`,
    );
    await conditionalUpdate(this.db, this.table, pageKey(siteId, page.type, page.id), update);
  }

  /**
   * The links relink keeps from readers on each of `ids` (pages of `type`), with since when: each page's
   * suppressed link items (one Query per page, a few at a time), and what page items from before link
   * items still have (one batch read, then the times of just those links; their names are known only
   * then). The list indexes have neither.
   */
  async suppressedOf(
    siteId: number,
    type: PageType,
    ids: readonly string[],
  ): Promise<Map<string, PageState['suppressed']>> {
    const [legacy, linked] = await Promise.all([
      this.legacySuppressedOf(siteId, type, ids),
      mapLimit(ids, LINK_QUERIES_IN_FLIGHT, (id) =>
        queryPageLinks(this.db, this.table, siteId, { id, type }, { suppressedOnly: true }),
      ),
    ]);
    return new Map(
      ids.map((id, i) => [id, [...(legacy.get(id) ?? []), ...suppressedOfLinks(linked[i] ?? [])].sort(byId)]),
    );
  }

  private async legacySuppressedOf(
    siteId: number,
    type: PageType,
    ids: readonly string[],
  ): Promise<Map<string, PageState['suppressed']>> {
    const keys = ids.map((id) => pageKey(siteId, type, id));
    const sets = await batchGet(this.db, this.table, keys, { expression: '#id, suppressed', names: { '#id': 'id' } });
    const withLinks = sets.map((item) => decodeSuppressed(item)).filter((item) => item.suppressed?.size);
    const result = new Map<string, PageState['suppressed']>();
    if (withLinks.length === 0) return result;
    const targets = [...new Set(withLinks.flatMap((item) => [...(item.suppressed ?? [])]))];
    const names: Record<string, string> = {
      '#id': 'id',
      ...Object.fromEntries(targets.map((target, i) => [`#s${i}`, suppressedSinceAttribute(target)])),
    };
    const times = await batchGet(
      this.db,
      this.table,
      withLinks.map((item) => pageKey(siteId, type, item.id)),
      { expression: Object.keys(names).join(', '), names },
    );
    const timesOf = new Map(times.map((item) => decodeSuppressed(item)).map((item) => [item.id, item]));
    for (const item of withLinks) result.set(item.id, suppressedLinksOf(item.suppressed, timesOf.get(item.id) ?? {}));
    return result;
  }
}
