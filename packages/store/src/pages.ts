import { createHash, randomBytes } from 'node:crypto';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  isLive,
  type CommunityAnswer,
  type ListedPage,
  type PageCard,
  type PageDoc,
  type PageState,
  type PageListItem,
  type PageStatus,
  type PageType,
} from '@cm/contract';
import { batchGet, batchWrite, conditionFailed, mapLimit, queryAll } from './batch';
import { decodeCursorPositions, encodeCursor, ONE_POSITION, TWO_POSITIONS } from './cursor';
import { CorruptItem, InvalidCursor } from './errors';
import { queryPageLinks, type PageLink } from './links';
import { sectionsHash, sectionName, SectionStore } from './sections';
import { Update } from './update';
import { decodePageLink } from './links.decoder';
import { encodeJson, INLINE_LIMIT_BYTES, splitChunks } from './codec';
import {
  decodeAnswer,
  decodeChunk,
  decodeDoc,
  decodeLinkTarget,
  decodeListedPage,
  decodePage,
  decodePageListIndexItem,
  decodeNotifiedOld,
  decodePageLiveState,
  decodePutOld,
  isPageItem,
  decodeSuppressed,
  type PageItem,
  type PageLiveStateItem,
} from './pages.decoder';
import { sitePartition } from './keys';
import {
  answerPrefix,
  answerSk,
  chunkPrefix,
  chunkSk,
  listedSortKey,
  livePagesPartition,
  pageKey,
  pageLinkPrefix,
  pagePartsPrefix,
  pagesByStatus,
  pagesByUpdated,
  pageSk,
  notifyUpdate,
  publishUpdate,
  suppressedSinceAttribute,
} from './page-item';

/** The page with the times the service itself recorded (never the editor's `updated_at`), for visitor pages' Last-Modified. */
export interface StoredPage extends PageState {
  /** When the newest publish was stored or the newest notify applied was received. */
  notified_at: string | null;
  /** When the site last set or removed the summary. */
  summary_at: string | null;
}

export interface PutPage {
  siteId: number;
  type: PageType;
  id: string;
  doc: PageDoc;
  /** Outgoing links (sorted), indexed so that relink finds linking pages with one Query. */
  links: string[];
  /** What the site's listing pages, sitemaps and feed show of it, and the sections that list it. */
  card: PageCard;
  now: string;
}

export interface PutResult {
  created: boolean;
  created_at: string;
  /** The replaced page's live state and owed relink, or null when the page is new. */
  previous: CurrentLiveState | null;
  /** The document version this publish wrote; a later write to the page can be made conditional on it. */
  version: string;
  /** Pages linked to this one before it existed (a publish of theirs left a mark where it would be). */
  awaited: boolean;
  /** Null when the page's link items already have exactly its links; else what there is to bring in line. */
  linksToIndex: LinksToIndex | null;
}

/** What a publish finds of the page's link index when its links are not the ones indexed. */
export interface LinksToIndex {
  /** No link items to read: the page is new. */
  empty: boolean;
  /** What a page item from before link items held: its links and the ones relink kept from readers. */
  legacy: { links: string[]; suppressed: PageState['suppressed'] } | null;
  /** The links' hash, which the index is said to have once they are in line. */
  hash: string | null;
}

export interface CurrentLiveState {
  status: PageStatus;
  deleted: boolean;
  /** The site's date of the newest dated notify applied since the page's last publish, or null. */
  site_clock: string | null;
  /** When set, a relink for this page's last change is owed. */
  relink_pending: string | null;
}

/** A page of `GET /articles` or `/questions` as the store answers it (PageList without what the workflow adds). */
export interface StoredPageList {
  /** What the list indexes (by updated, by status) have of each page; the workflow adds its URL and, when asked, its suppressed links. */
  items: Omit<PageListItem, 'url' | 'suppressed_links'>[];
  next_cursor: string | null;
}

/** A notify written: the page's live state before it (null when the notify set none), and the relink owed before it. */
export interface NotifyApplied {
  before: { status: PageStatus; deleted: boolean } | null;
  relinkPendingBefore: string | null;
  /** Set when this write marked a relink owed (none was): the caller takes the mark back if no relink is due. */
  markedAt: string | null;
}

export interface LinkTarget {
  id: string;
  type: PageType;
  slug: string;
  /** An article's title or a question's question: what a card of it shows. */
  title: string;
  live: boolean;
  /** When its live state may last have changed: its newest publish or notify. */
  notified_at: string | null;
}

/** What a page item says of the page's live state (page lists read the same attributes from the indexes). */
function liveStateOf(item: PageLiveStateItem): CurrentLiveState & { live: boolean } {
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
const suppressedLinksOf = (
  suppressed: Set<string> | undefined,
  times: Record<string, unknown>,
): PageState['suppressed'] =>
  [...(suppressed ?? [])].sort().map((target) => {
    const since = times[suppressedSinceAttribute(target)];
    return { id: target, since: typeof since === 'string' ? since : null };
  });

const newVersion = (): string => `${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

/** A page's links (sorted) in a few bytes, so a publish tells from the item it replaces whether they changed; null: none. */
const linksHash = (links: readonly string[]): string | null =>
  links.length === 0 ? null : createHash('sha256').update(links.join('\n')).digest('base64url').slice(0, 22);

/** The links a page's link items say relink keeps from readers, each with since when. */
const suppressedOfLinks = (links: readonly PageLink[]): PageState['suppressed'] =>
  links.flatMap((link) => (link.suppressed_since ? [{ id: link.target, since: link.suppressed_since }] : []));

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The latest of ISO times, or null when there is none. */
const newest = (times: readonly (string | null | undefined)[]): string | null =>
  times.reduce<string | null>((latest, time) => (time && (latest === null || time > latest) ? time : latest), null);

/** Marks written in parallel at most by one publish. */
const AWAIT_PARALLEL = 32;
/** Pages whose link items a page list reads at once. */
const LINK_QUERIES_IN_FLIGHT = 10;

export class PageStore {
  private readonly sections: SectionStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.sections = new SectionStore(db, table);
  }

  /**
   * Upserts a page. When the document fits one item and its links and sections did not change, this is
   * one UpdateItem, which also puts the page in the index of live pages while it is live (or takes it
   * out). It leaves the site-owned parts (summary, community answers) and `created_at` alone.
   */
  async put(input: PutPage): Promise<PutResult> {
    const { siteId, type, id, doc, links, card, now } = input;
    const encoded = encodeJson(doc);
    const version = newVersion();
    const chunks = encoded.length > INLINE_LIMIT_BYTES ? splitChunks(encoded) : [];
    if (chunks.length > 0) {
      // Chunks first: the page item only ever points at a complete version.
      await batchWrite(
        this.db,
        this.table,
        chunks.map((data, i) => ({
          PutRequest: { Item: { pk: sitePartition(siteId), sk: chunkSk(type, id, version, i), data } },
        })),
      );
    }
    const hash = linksHash(links);
    const sectionsNow = sectionsHash(card.sections);
    const update = publishUpdate({
      siteId,
      type,
      id,
      slug: doc.slug,
      title: 'title' in doc ? doc.title : doc.question,
      status: doc.status,
      updatedAt: doc.updated_at,
      version,
      doc: chunks.length === 0 ? encoded : null,
      chunks: chunks.length,
      linksHash: hash,
      sections: card.sections.map(sectionName),
      sectionsHash: sectionsNow,
      card,
      now,
    });
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        ...update.input(),
        ReturnValues: 'ALL_OLD',
      }),
    );
    const before = decodePutOld(out.Attributes);
    const old = before.page;
    if (old?.chunks && old.version) await this.deleteChunks(siteId, type, id, old.version, old.chunks);
    const createdAt = old?.created_at ?? now;
    // A page from before listings were kept would otherwise sort as new: its own first publish places it.
    if (old && old.listing_sk === undefined)
      await this.ifVersion(siteId, type, id, version, {
        update: `SET listing_sk = :lsk${isLive(doc.status, false) ? ', gsi5sk = :lsk' : ''}`,
        values: { ':lsk': listedSortKey(createdAt, id) },
      });
    // The section items have the page's sections once the write after them says so: a publish that failed between is made good by the next.
    if ((old?.sections_indexed ?? null) !== sectionsNow) {
      await this.sections.reindex(siteId, { type, id }, createdAt, old?.sections ?? [], card.sections);
      await this.ifVersion(siteId, type, id, version, {
        update: sectionsNow === null ? 'REMOVE sections_indexed' : 'SET sections_indexed = :sections',
        values: sectionsNow === null ? {} : { ':sections': sectionsNow },
      });
    }
    const legacy = old?.links ? { links: old.links, suppressed: suppressedLinksOf(old.suppressed, old) } : null;
    // The index has the links when the page's last publish brought it in line and had these links.
    const indexed = legacy === null && (old?.links_hash ?? null) === hash && (old?.links_indexed ?? null) === hash;
    return {
      created: !old,
      created_at: old?.created_at ?? now,
      previous: old ? liveStateOf(old) : null,
      version,
      awaited: before.awaited,
      linksToIndex: indexed ? null : { empty: !old, legacy, hash },
    };
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
    if (isLive(page.status, page.deleted))
      update.set('gsi5pk', livePagesPartition(siteId, type)).set('gsi5sk', listedSortKey(page.created_at, id));
    const condition = `attribute_exists(${update.name('status')}) AND attribute_not_exists(${update.name('listing_sk')})`;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, type, id),
          ...update.input(),
          ConditionExpression: condition,
        }),
      );
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
    if (hash !== null) {
      await this.sections.reindex(siteId, { type, id }, page.created_at, [], card.sections);
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: pageKey(siteId, type, id),
            UpdateExpression: 'SET sections_indexed = :hash',
            ConditionExpression: 'sections_hash = :hash',
            ExpressionAttributeValues: { ':hash': hash },
          }),
        );
      } catch (error) {
        // A publish since brought its own sections in line.
        if (!conditionFailed(error)) throw error;
      }
    }
    return true;
  }

  /**
   * The page's link index has the links of its publish `version` (their `hash`), and what a page item
   * from before link items held of them is removed. Only while `version` is the page's: a newer publish
   * brings its own links in line. Until this is written, the page's next publish brings them in line
   * again, even with the same links, so one that failed part way is made good.
   */
  async linksIndexed(
    siteId: number,
    page: { type: PageType; id: string; version: string },
    hash: string | null,
    legacySuppressed: readonly string[] | null,
  ): Promise<void> {
    const names = Object.fromEntries(
      (legacySuppressed ?? []).map((target, i) => [`#since${i}`, suppressedSinceAttribute(target)]),
    );
    const remove = [...(hash === null ? ['links_indexed'] : []), ...(legacySuppressed ? ['links', 'suppressed'] : [])];
    remove.push(...Object.keys(names));
    await this.ifVersion(siteId, page.type, page.id, page.version, {
      update: `${hash === null ? '' : 'SET links_indexed = :hash '}${remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''}`,
      names,
      values: hash === null ? {} : { ':hash': hash },
    });
  }

  private async ifVersion(
    siteId: number,
    type: PageType,
    id: string,
    version: string,
    change: { update: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, type, id),
          UpdateExpression: change.update,
          ConditionExpression: 'version = :version',
          ...(change.names && Object.keys(change.names).length > 0 ? { ExpressionAttributeNames: change.names } : {}),
          ExpressionAttributeValues: { ':version': version, ...change.values },
        }),
      );
    } catch (error) {
      // A newer publish replaced the page: it brings the links in line itself.
      if (!conditionFailed(error)) throw error;
    }
  }

  /**
   * Leaves a mark where each of `pages` would be (none of them exists yet): pages link to them, so their
   * first publish queues a relink, with no query of its own. A page that appeared meanwhile only gets the
   * mark, which its next publish removes.
   */
  async awaitPages(siteId: number, pages: readonly { id: string; type: PageType }[], now: string): Promise<void> {
    await mapLimit(pages, AWAIT_PARALLEL, (page) =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, page.type, page.id),
          UpdateExpression: 'SET awaited_at = if_not_exists(awaited_at, :now)',
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
  }

  private async deleteChunks(siteId: number, type: PageType, id: string, version: string, count: number) {
    await batchWrite(
      this.db,
      this.table,
      Array.from({ length: count }, (_v, i) => ({
        DeleteRequest: { Key: { pk: sitePartition(siteId), sk: chunkSk(type, id, version, i) } },
      })),
    );
  }

  /** The page with its parts, in one Query (more only for very large pages or many answers). */
  async get(siteId: number, type: PageType, id: string): Promise<StoredPage | null> {
    for (let attempt = 0; ; attempt++) {
      const items = await this.queryParts(siteId, type, id);
      const mainItem = items.find((item) => item.sk === pageSk(type, id));
      if (!mainItem || !isPageItem(mainItem)) return null;
      const main = decodePage(mainItem);
      const doc = this.assembleDoc(main, mainItem, items, type, id);
      // A concurrent republish may have replaced the chunks between our pages of results: read again.
      if (doc === null) {
        if (attempt < 3) continue;
        throw new Error(`page ${id}: chunks of version ${main.version} are incomplete`);
      }
      const answers = items.filter((item) => String(item.sk).startsWith(answerPrefix(type, id))).map(decodeAnswer);
      const links = items.filter((item) => String(item.sk).startsWith(pageLinkPrefix(type, id))).map(decodePageLink);
      return {
        site_id: siteId,
        type,
        id,
        doc,
        status: main.status,
        deleted: main.deleted === true,
        created_at: main.created_at,
        updated_at: main.updated_at,
        suppressed: [...suppressedLinksOf(main.suppressed, main), ...suppressedOfLinks(links)].sort(byId),
        relinked_at: newest([main.relinked_at, ...links.map((link) => link.relinked_at)]),
        summary: main.summary ?? null,
        community_answers: answers,
        notified_at: main.notified_at ?? null,
        summary_at: main.summary_at ?? null,
      };
    }
  }

  private async queryParts(siteId: number, type: PageType, id: string): Promise<Record<string, unknown>[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': sitePartition(siteId), ':sk': pageSk(type, id) },
      ConsistentRead: true,
    });
    return items.filter(
      (item) => item.sk === pageSk(type, id) || String(item.sk).startsWith(pagePartsPrefix(type, id)),
    );
  }

  private assembleDoc(
    main: PageItem,
    mainItem: Record<string, unknown>,
    items: Record<string, unknown>[],
    type: PageType,
    id: string,
  ): PageDoc | null {
    const count = main.chunks ?? 0;
    if (count === 0) {
      if (!main.doc)
        throw new CorruptItem('page', `${String(mainItem.pk)} ${String(mainItem.sk)}`, 'no doc and no chunks');
      return decodeDoc(main.doc, mainItem);
    }
    const prefix = chunkPrefix(type, id, String(main.version));
    const parts = items
      .filter((item) => String(item.sk).startsWith(prefix))
      .map(decodeChunk)
      .sort((a, b) => a.sk.localeCompare(b.sk))
      .map((chunk) => chunk.data);
    if (parts.length !== count) return null;
    return decodeDoc(Buffer.concat(parts), mainItem);
  }

  /** Newest `updated_at` first, from an index: never a scan of the site. */
  async list(
    siteId: number,
    type: PageType,
    options: { limit: number; cursor?: string; status?: PageStatus },
  ): Promise<StoredPageList> {
    const { status } = options;
    const index = status !== undefined ? 'gsi2' : 'gsi1';
    const indexPk = status !== undefined ? pagesByStatus(siteId, type, status) : pagesByUpdated(siteId, type);
    const start = options.cursor ? listingStart(options.cursor, siteId, index, indexPk) : undefined;
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: index,
        KeyConditionExpression: `${index}pk = :pk`,
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
    return { items, next_cursor: last ? encodeCursor([String(last[`${index}sk`]), String(last.sk)]) : null };
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
    const before = options.cursor === undefined ? undefined : decodeCursorPositions(options.cursor, ONE_POSITION)[0];
    const reads = await Promise.all(
      types.map((type) =>
        this.db.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: 'gsi5',
            KeyConditionExpression: before === undefined ? 'gsi5pk = :pk' : 'gsi5pk = :pk AND gsi5sk < :before',
            ExpressionAttributeValues: {
              ':pk': livePagesPartition(siteId, type),
              ...(before === undefined ? {} : { ':before': before }),
            },
            ScanIndexForward: false,
            Limit: options.limit,
          }),
        ),
      ),
    );
    const listed = reads
      .flatMap((out) => (out.Items ?? []).map((item) => ({ sk: String(item.gsi5sk), page: decodeListedPage(item) })))
      .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
    const shown = listed.slice(0, options.limit);
    const more = listed.length > shown.length || reads.some((out) => out.LastEvaluatedKey !== undefined);
    const last = shown.at(-1);
    return { pages: shown.map(({ page }) => page), next: more && last ? encodeCursor([last.sk]) : null };
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
          IndexName: 'gsi5',
          KeyConditionExpression: 'gsi5pk = :pk AND gsi5sk BETWEEN :from AND :to',
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

  /** Whether the site has a live page of `type` first published in [from, to): one Query of one item. */
  async hasLivePagesBetween(siteId: number, type: PageType, range: { from: string; to: string }): Promise<boolean> {
    return (await this.livePagesBetween(siteId, type, range, 0)).more;
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
    const { update, condition } = notifyUpdate({ siteId, type, id }, change);
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, type, id),
          ...update.input(),
          ConditionExpression: condition,
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const old = decodeNotifiedOld(out.Attributes ?? {}, pageKey(siteId, type, id));
      const before = next && old.status ? { status: old.status, deleted: old.deleted === true } : null;
      const relinkPendingBefore = old.relink_pending ?? null;
      return { before, relinkPendingBefore, markedAt: relinkPendingBefore === null ? receivedAt : null };
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    // Refused: no such page, or a later-dated notify was applied.
    return (await this.liveState(siteId, type, id)) ? 'stale' : 'unmatched';
  }

  /** Marks a relink as owed from `at`, before it is queued: a later call sees it if queueing failed. */
  async markRelinkPending(siteId: number, type: PageType, id: string, at: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        UpdateExpression: 'SET relink_pending = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  /** The relink owed since `at` is done, unless a newer one was asked for meanwhile. */
  async clearRelinkPending(siteId: number, type: PageType, id: string, at: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, type, id),
          UpdateExpression: 'REMOVE relink_pending',
          ConditionExpression: 'relink_pending = :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  /**
   * What readers see of the page changed at `at` (relink, a community answer): its sitemap entry's
   * lastmod, which only moves forward. Nothing when there is no such page.
   */
  async visibleChange(siteId: number, page: { type: PageType; id: string }, at: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, page.type, page.id),
          UpdateExpression: 'SET visible_at = :at',
          ConditionExpression: 'attribute_exists(#status) AND (attribute_not_exists(visible_at) OR visible_at < :at)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  /** Sets the site-owned summary of a question; false when there is no such question. */
  async setSummary(siteId: number, id: string, summary: string | null, now: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, 'question', id),
          UpdateExpression:
            summary === null
              ? 'SET summary_at = :now, visible_at = :now REMOVE summary'
              : 'SET summary = :s, summary_at = :now, visible_at = :now',
          ConditionExpression: 'attribute_exists(version)',
          ExpressionAttributeValues: summary === null ? { ':now': now } : { ':s': summary, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  /** Stores a community answer beside a question; false when there is no such question. */
  async addCommunityAnswer(siteId: number, questionId: string, answer: CommunityAnswer): Promise<boolean> {
    const exists = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, 'question', questionId),
        ProjectionExpression: 'version',
      }),
    );
    if (!exists.Item?.version) return false;
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: sitePartition(siteId),
          sk: answerSk('question', questionId, answer.created_at, answer.answer_id),
          data: JSON.stringify(answer),
        },
      }),
    );
    await this.visibleChange(siteId, { type: 'question', id: questionId }, answer.created_at);
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
function listingStart(cursor: string, siteId: number, index: string, indexPk: string): Record<string, string> {
  const [indexSk, sk] = decodeCursorPositions(cursor, TWO_POSITIONS);
  if (!sk.startsWith('PAGE#')) throw new InvalidCursor();
  return { [`${index}pk`]: indexPk, [`${index}sk`]: indexSk, pk: sitePartition(siteId), sk };
}
