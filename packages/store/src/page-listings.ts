import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isLive, type ListedPage, type PageCard, type PageStatus, type PageType } from '@cm/contract';
import { batchGet } from './batch';
import { conditionalUpdate } from './conditional';
import { decodeCursorPositions, encodeCursor, ONE_POSITION, TWO_POSITIONS } from './cursor';
import { InvalidCursor } from './errors';
import { sectionsHash, sectionName, SectionStore } from './sections';
import { Update } from './update';
import { decodeLinkTarget, decodeListedPage, decodePageListIndexItem, isPageItem } from './pages.decoder';
import {
  indexStart,
  listedSortKey,
  liveMonthPartition,
  livePagesPartition,
  pageKey,
  pagesByStatus,
  pagesByUpdated,
  sitePartition,
} from './keys';
import { LIVE_BY_MONTH, LIVE_PAGES, PAGES_BY_STATUS, PAGES_BY_UPDATED, type TableIndex } from './table';
import { liveStateOf } from './page-item';
import type { LinkTarget, ListingRun, RunToward, StoredPage, StoredPageList } from './page-types';

/*
 * A site's pages as lists read them, from the indexes (by updated_at, by status, and the index of live
 * pages), and the cards of the pages a page links to.
 */

export class PageListingStore {
  private readonly sections: SectionStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.sections = new SectionStore(db, table);
  }

  /** Newest `updated_at` first, from an index: never a scan of the site. */
  async list(
    siteId: number,
    type: PageType,
    options: { limit: number; cursor?: string; status?: PageStatus },
  ): Promise<StoredPageList> {
    const { status } = options;
    const index = status !== undefined ? PAGES_BY_STATUS : PAGES_BY_UPDATED;
    const indexPk = status !== undefined ? pagesByStatus(siteId, type, status) : pagesByUpdated(siteId, type);
    const start = options.cursor ? listingStart(options.cursor, siteId, index, indexPk) : undefined;
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: index.name,
        KeyConditionExpression: `${index.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': indexPk },
        ScanIndexForward: false,
        Limit: options.limit,
        ExclusiveStartKey: start,
      }),
    );
    const items = (out.Items ?? []).map((listed) => {
      const item = decodePageListIndexItem(listed);
      const { live, deleted } = liveStateOf(item);
      const base = { id: item.id, slug: item.slug, status: item.status, live, deleted, updated_at: item.updated_at };
      return type === 'article' ? { ...base, title: item.title } : { ...base, question: item.title };
    });
    const last = out.LastEvaluatedKey;
    return { items, next_cursor: last ? encodeCursor([String(last[index.sortKey]), String(last.sk)]) : null };
  }

  /**
   * A page of the site's live pages of `types`, newest first publish first, from the index of live
   * pages: one Query per type (eventually consistent, as every index read is), merged.
   */
  async livePages(
    siteId: number,
    types: readonly PageType[],
    options: { limit: number; cursor?: string },
  ): Promise<{ pages: ListedPage[]; next: string | null }> {
    const run = await this.liveRun(siteId, types, { ...options, toward: 'older' });
    const last = run.items.at(-1);
    return { pages: run.items.map(({ item }) => item), next: !run.end && last ? last.cursor : null };
  }

  /**
   * The site's live pages of `types` from `cursor` (none: from the newest) toward the older or the newer,
   * nearest first, at most `limit`: one Query per type, merged.
   */
  async liveRun(
    siteId: number,
    types: readonly PageType[],
    options: { limit: number; cursor?: string; toward: RunToward },
  ): Promise<ListingRun<ListedPage>> {
    const { limit, toward } = options;
    const at = options.cursor === undefined ? undefined : decodeCursorPositions(options.cursor, ONE_POSITION)[0];
    const past = toward === 'older' ? '<' : '>';
    const reads = await Promise.all(
      types.map((type) =>
        this.db.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: LIVE_PAGES.name,
            KeyConditionExpression: `${LIVE_PAGES.partitionKey} = :pk${at === undefined ? '' : ` AND ${LIVE_PAGES.sortKey} ${past} :at`}`,
            ExpressionAttributeValues: {
              ':pk': livePagesPartition(siteId, type),
              ...(at === undefined ? {} : { ':at': at }),
            },
            ScanIndexForward: toward === 'newer',
            Limit: limit,
          }),
        ),
      ),
    );
    const order = toward === 'older' ? -1 : 1;
    const listed = reads
      .flatMap((out) =>
        (out.Items ?? []).map((item) => ({ sk: String(item[LIVE_PAGES.sortKey]), item: decodeListedPage(item) })),
      )
      .sort((a, b) => (a.sk < b.sk ? -order : a.sk > b.sk ? order : 0));
    const shown = listed.slice(0, limit);
    return {
      items: shown.map(({ sk, item }) => ({ cursor: encodeCursor([sk]), item })),
      end: listed.length === shown.length && reads.every((out) => out.LastEvaluatedKey === undefined),
    };
  }

  /**
   * The site's live pages of `type` first published in [from, to) (ISO times or their prefixes), oldest
   * first, at most `max`; `more` when there are others past it. Pages of up to 1 MB each.
   */
  async livePagesBetween(
    siteId: number,
    type: PageType,
    range: { from: string; to: string },
    max: number,
  ): Promise<{ pages: ListedPage[]; more: boolean }> {
    const pages: ListedPage[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: LIVE_PAGES.name,
          KeyConditionExpression: `${LIVE_PAGES.partitionKey} = :pk AND ${LIVE_PAGES.sortKey} BETWEEN :from AND :to`,
          // BETWEEN takes both ends: `to` itself is never a sort key (each has an id after the time).
          ExpressionAttributeValues: { ':pk': livePagesPartition(siteId, type), ':from': range.from, ':to': range.to },
          Limit: max + 1 - pages.length,
          ExclusiveStartKey: start,
        }),
      );
      pages.push(...(out.Items ?? []).map(decodeListedPage));
      start = out.LastEvaluatedKey;
    } while (start && pages.length <= max);
    return { pages: pages.slice(0, max), more: pages.length > max || start !== undefined };
  }

  /**
   * When what readers see of the site's live pages first published in `month` (`yyyy-mm`) last changed:
   * one Query of one item of the index of live pages by month. Null when it has none there (none, or only
   * pages from before months were kept: their next publish places them).
   */
  async monthChangedAt(siteId: number, month: string): Promise<string | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: LIVE_BY_MONTH.name,
        KeyConditionExpression: `${LIVE_BY_MONTH.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': liveMonthPartition(siteId, month) },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const latest: unknown = out.Items?.[0]?.[LIVE_BY_MONTH.sortKey];
    return typeof latest === 'string' ? latest : null;
  }

  /** Whether the site has a live page of `type` first published in [from, to): one Query of one item. */
  async hasLivePagesBetween(siteId: number, type: PageType, range: { from: string; to: string }): Promise<boolean> {
    return (await this.livePagesBetween(siteId, type, range, 0)).more;
  }

  /**
   * Puts a page published before listings were kept into them, as its next publish would: its card,
   * its place by its first publish, the index of live pages while it is live, and its sections. Only a
   * page that is not listed yet: a publish or relist meanwhile did it already (false then).
   */
  async relist(siteId: number, page: StoredPage, card: PageCard): Promise<boolean> {
    const { type, id } = page;
    const sections = card.sections.map(sectionName);
    const hash = sectionsHash(card.sections);
    const update = new Update()
      .set('listing_sk', listedSortKey(page.created_at, id))
      .set('noindex', card.noindex)
      .set('visible_at', page.notified_at ?? page.created_at);
    for (const [attribute, value] of [
      ['card_text', card.card_text],
      ['category', card.category],
      ['canonical_url', card.canonical_url],
      ['sections', sections.length > 0 ? sections : null],
      ['sections_hash', hash],
    ] as const)
      if (value !== null) update.set(attribute, value);
    const month = liveMonthPartition(siteId, page.created_at.slice(0, 7));
    update.set('month_pk', month, { valueKey: 'mpk' });
    if (isLive(page.status, page.deleted))
      update
        .set(LIVE_PAGES.partitionKey, livePagesPartition(siteId, type))
        .set(LIVE_PAGES.sortKey, listedSortKey(page.created_at, id))
        .set(LIVE_BY_MONTH.partitionKey, month, { valueKey: 'mpk' });
    update.when(`${update.exists('status')} AND ${update.absent('listing_sk')}`);
    if (!(await conditionalUpdate(this.db, this.table, pageKey(siteId, type, id), update)).ok) return false;
    if (hash !== null) {
      await this.sections.reindex(siteId, { type, id }, page.created_at, [], card.sections);
      const indexed = new Update().set('sections_indexed', hash, { valueKey: 'hash' });
      indexed.when(`${indexed.name('sections_hash')} = ${indexed.value('hash', hash)}`);
      // Refused when a publish since brought its own sections in line.
      await conditionalUpdate(this.db, this.table, pageKey(siteId, type, id), indexed);
    }
    return true;
  }

  /**
   * Slug, title and live state of the pages a page links to (unknown ids are left out), in one batch read;
   * `consistent` when a write is decided on what it reads.
   */
  async linkTargets(
    siteId: number,
    pages: readonly { id: string; type: PageType }[],
    options: { consistent?: boolean } = {},
  ): Promise<Map<string, LinkTarget>> {
    const keys = pages.map(({ id, type }) => pageKey(siteId, type, id));
    if (keys.length === 0) return new Map();
    const items = await batchGet(
      this.db,
      this.table,
      keys,
      {
        expression: 'id, slug, title, #type, #status, deleted, notified_at',
        names: { '#type': 'type', '#status': 'status' },
      },
      options,
    );
    return new Map(
      items.filter(isPageItem).map((found) => {
        const item = decodeLinkTarget(found);
        const target = {
          id: item.id,
          type: item.type,
          slug: item.slug,
          title: item.title,
          live: liveStateOf(item).live,
        };
        return [item.id, { ...target, notified_at: item.notified_at ?? null }];
      }),
    );
  }
}

/** Where a listing continues: positions from the cursor, the partitions from the caller's site. */
function listingStart(cursor: string, siteId: number, index: TableIndex, indexPk: string): Record<string, string> {
  const [indexSk, sk] = decodeCursorPositions(cursor, TWO_POSITIONS);
  if (!sk.startsWith('PAGE#')) throw new InvalidCursor();
  return indexStart(index, indexPk, indexSk, { pk: sitePartition(siteId), sk });
}
