import { isLive, type PageState, type PageStatus, type PageType } from '@cm/contract';
import {
  listedSortKey,
  liveMonthPartition,
  livePagesPartition,
  pagesByStatus,
  pagesByUpdated,
  updatedSortKey,
} from './keys';
import { Update } from './update';
import { LIVE_BY_MONTH, LIVE_PAGES, PAGES_BY_STATUS, PAGES_BY_UPDATED } from './table';
import type { PageLiveStateItem } from './pages.decoder';
import type { CurrentLiveState } from './page-types';

/*
 * The page item's attributes: what it says of the page (its live state, the links relink keeps from
 * readers) and what a publish and a notify write of it. Its key and its parts' keys are in keys.ts.
 */

/**
 * Before page links were items of their own, a page item held its links (`links`), the targets relink
 * took out (`suppressed`) and since when, in one attribute per target named so. Still read, and removed
 * by the page's next publish or by relink's restore.
 */
const SUPPRESSED_SINCE_PREFIX = 'suppressed_since#';
export const suppressedSinceAttribute = (targetId: string): string => `${SUPPRESSED_SINCE_PREFIX}${targetId}`;

/** What a page item says of the page's live state (page lists read the same attributes from the indexes). */
export function liveStateOf(item: PageLiveStateItem): CurrentLiveState & { live: boolean } {
  const deleted = item.deleted === true;
  return {
    status: item.status,
    deleted,
    live: isLive(item.status, deleted),
    site_clock: item.site_clock ?? null,
    relink_pending: item.relink_pending ?? null,
  };
}

/** A page item's suppressed links, sorted, each with since when as `times` (an item with their times) has it. */
export const suppressedLinksOf = (
  suppressed: Set<string> | undefined,
  times: Record<string, unknown>,
): PageState['suppressed'] =>
  [...(suppressed ?? [])].sort().map((target) => {
    const since = times[suppressedSinceAttribute(target)];
    return { id: target, since: typeof since === 'string' ? since : null };
  });

/** Orders pages, or links by their target, by id. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What a publish writes of its page (PageStore.put). */
export interface PublishWrite {
  siteId: number;
  type: PageType;
  id: string;
  slug: string;
  /** An article's title or a question's question. */
  title: string;
  status: PageStatus;
  updatedAt: string;
  version: string;
  /** The document gzipped when it fits the item, else null (it is in `chunks` chunk items). */
  doc: Uint8Array | null;
  chunks: number;
  /** Its links' hash (null: none), and its sections (`kind/slug`) and their hash. */
  linksHash: string | null;
  sections: readonly string[];
  sectionsHash: string | null;
  card: { card_text: string | null; category: string | null; noindex: boolean; canonical_url: string | null };
  /** Its content's hash (core's contentHash: the document but `updated_at`). */
  contentHash: string;
  now: string;
  /** When its schedule publishes it and takes it down (none: neither). */
  schedule?: PageScheduleTimes | null;
  /** The primary keyword it names (null: none). */
  primaryKeyword: string | null;
}

/** A page's schedule as its item keeps it, for its read reply and the sweep's condition. */
export interface PageScheduleTimes {
  publish_at: string | null;
  unpublish_at: string | null;
}

/**
 * The one UpdateItem of a publish: the page's state and document, its index attributes (and the index
 * of live pages while it is live: a publish undoes a delete), its card, and what it leaves to the site
 * alone (summary, community answers) and to its first publish (`created_at`, `listing_sk`).
 * `seen`: whether readers see a change (`changed`: the write moves `visible_at` and `notified_at`, on
 * condition that the page is not live with this very document) or not (`same`: on the opposite condition).
 */
export function publishUpdate(write: PublishWrite, seen: 'changed' | 'same'): Update {
  const { siteId, type, id, status, now } = write;
  const sortKey = updatedSortKey(write.updatedAt, id);
  const firstAt = firstPublishOf(write.schedule, now);
  const update = new Update()
    .set('type', type)
    .set('id', id)
    .set('site_id', siteId)
    .set('slug', write.slug)
    .set('title', write.title)
    .set('status', status)
    .set('updated_at', write.updatedAt)
    .set('deleted', false)
    .set('version', write.version)
    .set('chunks', write.chunks)
    .setIfAbsent('created_at', firstAt, { valueKey: 'first' })
    .set('content_hash', write.contentHash)
    .set(PAGES_BY_UPDATED.partitionKey, pagesByUpdated(siteId, type))
    .set(PAGES_BY_UPDATED.sortKey, sortKey)
    .set(PAGES_BY_STATUS.partitionKey, pagesByStatus(siteId, type, status))
    .set(PAGES_BY_STATUS.sortKey, sortKey)
    .set('noindex', write.card.noindex)
    // Its first publish orders the site's listings (from the first publish that kept it).
    .setIfAbsent('listing_sk', listedSortKey(firstAt, id), { valueKey: 'lsk' })
    // And its month sitemap (kept too: the index of live pages by month copies it).
    .setIfAbsent('month_pk', liveMonthPartition(siteId, firstAt.slice(0, 7)), { valueKey: 'mpk' })
    .setOrRemove('card_text', write.card.card_text)
    .setOrRemove('category', write.card.category)
    .setOrRemove('canonical_url', write.card.canonical_url)
    .setOrRemove('sections', write.sections.length > 0 ? write.sections : null)
    .setOrRemove('sections_hash', write.sectionsHash)
    .setOrRemove('links_hash', write.linksHash)
    .setOrRemove('doc', write.doc)
    .setOrRemove('publish_at', write.schedule?.publish_at ?? null)
    .setOrRemove('unpublish_at', write.schedule?.unpublish_at ?? null)
    .setOrRemove('primary_keyword', write.primaryKeyword)
    // A publish starts a new sequence of the site's notifies: the first one after it applies whatever its date.
    .remove('site_clock', 'awaited_at');
  if (isLive(status, false))
    update
      .set(LIVE_PAGES.partitionKey, livePagesPartition(siteId, type))
      .setIfAbsent(LIVE_PAGES.sortKey, listedSortKey(firstAt, id), { from: 'listing_sk', valueKey: 'lsk' })
      .setIfAbsent(LIVE_BY_MONTH.partitionKey, liveMonthPartition(siteId, firstAt.slice(0, 7)), {
        from: 'month_pk',
        valueKey: 'mpk',
      });
  else update.remove(LIVE_PAGES.partitionKey, LIVE_PAGES.sortKey, LIVE_BY_MONTH.partitionKey);
  // The page as it was, with this content, date and state: readers would see nothing new.
  const same = [
    `${update.name('content_hash')} = ${update.value('content_hash', write.contentHash)}`,
    `${update.name('updated_at')} = ${update.value('updated_at', write.updatedAt)}`,
    `${update.name('status')} = ${update.value('status', status)}`,
    `${update.name('deleted')} = ${update.value('deleted', false)}`,
  ].join(' AND ');
  if (seen === 'same') return update.when(same);
  // What readers see of it changed: its sitemap entry's lastmod, its Last-Modified and the feed's updated.
  return update.set('notified_at', now).set('visible_at', now).when(`NOT (${same})`);
}

/**
 * When a page's first publish is, for a publish that stores it first: its `publish_at` when it has one
 * (it goes live then, and is listed among the pages published then), else now.
 */
export const firstPublishOf = (schedule: PageScheduleTimes | null | undefined, now: string): string =>
  schedule?.publish_at ?? now;

/** `update` sets the page's live state `next` at `at`, and the indexes that follow it. */
export function setLiveState(
  update: Update,
  page: { siteId: number; type: PageType; id: string },
  next: { status: PageStatus; deleted: boolean },
  at: string,
): Update {
  const { siteId, type, id } = page;
  update
    .set('status', next.status)
    .set('deleted', next.deleted)
    .set(PAGES_BY_STATUS.partitionKey, pagesByStatus(siteId, type, next.status));
  // The index of live pages follows, from the sort key the page's publish kept (none before listings were kept: it sorts as new).
  if (isLive(next.status, next.deleted))
    update
      .set(LIVE_PAGES.partitionKey, livePagesPartition(siteId, type))
      .setIfAbsent(LIVE_PAGES.sortKey, listedSortKey(at, id), { from: 'listing_sk', valueKey: 'lsk' })
      // A page from before months were kept is in no month's until its next publish places it.
      .setIfAbsent(LIVE_BY_MONTH.partitionKey, liveMonthPartition(siteId, 'unplaced'), {
        from: 'month_pk',
        valueKey: 'mpk',
      });
  else update.remove(LIVE_PAGES.partitionKey, LIVE_PAGES.sortKey, LIVE_BY_MONTH.partitionKey);
  return update;
}

/**
 * The one conditional UpdateItem of a notify (PageLiveStore.applyNotify): the state it sets (`next`; null:
 * it stays) with the indexes that follow it, the site's clock when it was dated, and a relink owed from
 * its receipt unless one is owed already. Its condition: the page exists, and a dated notify is not
 * older than the site's clock (only the site's dates are ordered against each other; a publish removes
 * the clock, so the first notify after it applies).
 */
export function notifyUpdate(
  page: { siteId: number; type: PageType; id: string },
  change: { next: { status: PageStatus; deleted: boolean } | null; receivedAt: string; siteClock: string | null },
): Update {
  const { next, receivedAt, siteClock } = change;
  const update = new Update()
    .set('notified_at', receivedAt)
    .setIfAbsent('relink_pending', receivedAt, { valueKey: 'notified_at' });
  // The site's word on the page's state outranks a schedule made before it.
  if (next) setLiveState(update, page, next, receivedAt).remove('publish_at', 'unpublish_at');
  const conditions = [`attribute_exists(${update.name('status')})`];
  if (siteClock !== null) {
    update.set('site_clock', siteClock);
    const clock = update.name('site_clock');
    conditions.push(`(attribute_not_exists(${clock}) OR ${clock} <= ${update.value('site_clock', siteClock)})`);
  }
  return update.when(conditions.join(' AND '));
}
