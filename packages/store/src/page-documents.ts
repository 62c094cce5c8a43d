import { createHash, randomBytes } from 'node:crypto';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isLive, type PageDoc, type PageStatus, type PageType } from '@cm/contract';
import { batchWrite, mapLimit, queryAll } from './batch';
import { conditionalUpdate } from './conditional';
import { Update } from './update';
import { CorruptItem } from './errors';
import { LIVE_BY_MONTH, LIVE_PAGES } from './table';
import { suppressedOfLinks } from './links';
import { sectionsHash, sectionName, SectionStore } from './sections';
import { decodePageLink } from './links.decoder';
import { encodeJson, INLINE_LIMIT_BYTES, splitChunks } from './codec';
import {
  decodeAnswer,
  decodeChunk,
  decodeDoc,
  decodePage,
  decodePutOld,
  isPageItem,
  type PageItem,
} from './pages.decoder';
import {
  answerPrefix,
  chunkPrefix,
  chunkKey,
  listedSortKey,
  liveMonthPartition,
  pageKey,
  pageLinkPrefix,
  type Key,
  pagePartsPrefix,
  pageSk,
  sitePartition,
} from './keys';
import { slugCondition } from './redirects';
import {
  byId,
  firstPublishOf,
  liveStateOf,
  publishUpdate,
  suppressedLinksOf,
  suppressedSinceAttribute,
} from './page-item';
import { writeScheduledChanges } from './schedules';
import type { PutPage, PutResult, StoredPage } from './page-types';
import { liveRevisionOf, RevisionStore } from './revisions';

/*
 * A site's page documents: a publish's write of the page (its item, and its chunks when it is large),
 * and the page read whole with its parts.
 */

const newVersion = (): string => `${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

/** A page's links (sorted) in a few bytes, so a publish tells from the item it replaces whether they changed; null: none. */
const linksHash = (links: readonly string[]): string | null =>
  links.length === 0 ? null : createHash('sha256').update(links.join('\n')).digest('base64url').slice(0, 22);

/**
 * A page from before listings (or their months) were kept placed by its first publish (`listedKey`), in
 * the index of live pages and that of its month while it is live.
 */
const listedUpdate = (siteId: number, listedKey: string, status: PageStatus): Update => {
  const month = liveMonthPartition(siteId, listedKey.slice(0, 7));
  const update = new Update()
    .set('listing_sk', listedKey, { valueKey: 'lsk' })
    .set('month_pk', month, { valueKey: 'mpk' });
  return isLive(status, false)
    ? update
        .set(LIVE_PAGES.sortKey, listedKey, { valueKey: 'lsk' })
        .set(LIVE_BY_MONTH.partitionKey, month, { valueKey: 'mpk' })
    : update;
};

/** The latest of ISO times, or null when there is none. */
const newest = (times: readonly (string | null | undefined)[]): string | null =>
  times.reduce<string | null>((latest, time) => (time && (latest === null || time > latest) ? time : latest), null);

/** Marks written in parallel at most by one publish. */
const AWAIT_PARALLEL = 32;

export class PageStore {
  private readonly sections: SectionStore;
  private readonly revisions: RevisionStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.sections = new SectionStore(db, table);
    this.revisions = new RevisionStore(db, table);
  }

  /**
   * Upserts a page. When the document fits one item and its links and sections did not change, this is
   * one UpdateItem, which also puts the page in the index of live pages while it is live (or takes it
   * out). It leaves the site-owned parts (summary, community answers) and `created_at` alone. Null when
   * the page does not hold the slug it was sent with (`claim`, redirects.ts): nothing is written then.
   */
  async put(input: PutPage): Promise<PutResult | null> {
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
          PutRequest: { Item: { ...chunkKey(siteId, type, id, version, i), data } },
        })),
      );
    }
    // Its scheduled changes first, as its chunks: one whose publish never landed names no version the page has.
    if (input.schedule) await writeScheduledChanges(this.db, this.table, { siteId, type, id, version }, input.schedule);
    const hash = linksHash(links);
    const sectionsNow = sectionsHash(card.sections);
    const write = {
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
      contentHash: input.contentHash,
      now,
      schedule: input.schedule,
      primaryKeyword: input.primaryKeyword ?? null,
    };
    const content = input.contentHash;
    const out = await this.writePage(pageKey(siteId, type, id), (seen) => {
      const update = publishUpdate(write, seen);
      slugCondition(update, input.claim ?? { slug: doc.slug, atSlot: true });
      // When this version was stored (its revision says).
      return update.set('stored_at', now);
    });
    if (!out) {
      if (chunks.length > 0) await this.deleteChunks(siteId, type, id, version, chunks.length);
      return null;
    }
    const before = decodePutOld(out);
    const old = before.page;
    // The version replaced is kept as a revision, before its chunks go (only when the content changed).
    if (old) await this.revisions.keep(siteId, { type, id }, out, content, now);
    if (old?.chunks && old.version) await this.deleteChunks(siteId, type, id, old.version, old.chunks);
    const first = firstPublishOf(input.schedule, now);
    // A page first stored ahead of its publish_at was never live (its first publish is still ahead): this
    // publish sets when it is, now or the schedule's new time, wherever it was first scheduled for.
    const rescheduled = old?.created_at !== undefined && old.created_at > now && old.created_at !== first;
    const createdAt = rescheduled ? first : (old?.created_at ?? first);
    // A page from before listings were kept would otherwise sort as new: its own first publish places it.
    if (old && (old.listing_sk === undefined || old.month_pk === undefined || rescheduled)) {
      const listedKey = rescheduled ? listedSortKey(first, id) : (old.listing_sk ?? listedSortKey(createdAt, id));
      const placed = listedUpdate(siteId, listedKey, doc.status);
      await this.ifVersion(siteId, { type, id, version }, rescheduled ? placed.set('created_at', first) : placed);
    }
    // Its section items sort by its first publish: those of the time it no longer has go.
    if (rescheduled && old.sections)
      await this.sections.reindex(siteId, { type, id }, old.created_at, old.sections, []);
    // The section items have the page's sections once the write after them says so: a publish that failed between is made good by the next.
    if (rescheduled || (old?.sections_indexed ?? null) !== sectionsNow) {
      const before = rescheduled ? [] : (old?.sections ?? []);
      await this.sections.reindex(siteId, { type, id }, createdAt, before, card.sections);
      await this.ifVersion(siteId, { type, id, version }, new Update().setOrRemove('sections_indexed', sectionsNow));
    }
    const legacy = old?.links ? { links: old.links, suppressed: suppressedLinksOf(old.suppressed, old) } : null;
    // The index has the links when the page's last publish brought it in line and had these links.
    const indexed = legacy === null && (old?.links_hash ?? null) === hash && (old?.links_indexed ?? null) === hash;
    return {
      created: !old,
      created_at: createdAt,
      previous: old ? liveStateOf(old) : null,
      version,
      contentChanged: old?.content_hash !== content,
      awaited: before.awaited,
      linksToIndex: indexed ? null : { empty: !old, legacy, hash },
      previousPrimaryKeyword: old?.primary_keyword ?? null,
    };
  }

  /**
   * The publish's one UpdateItem, as a change readers see; a republish of the live page's very content
   * is refused that way and written again as none (its sitemap lastmod, Last-Modified and the feed's
   * updated stay). Each write's condition is the other's opposite: the item as it was (ALL_OLD), or
   * null when both were refused, as when the page does not hold its slug (`claim`) or a publish came
   * between them (the caller reads the slug's slot and tries again: slugs.ts).
   */
  private async writePage(key: Key, update: (seen: 'changed' | 'same') => Update) {
    for (const seen of ['changed', 'same'] as const) {
      const written = await conditionalUpdate(this.db, this.table, key, update(seen), { returns: 'ALL_OLD' });
      if (written.ok) return written.attributes;
    }
    return null;
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
    const update = new Update().setOrRemove('links_indexed', hash);
    if (legacySuppressed) update.remove('links', 'suppressed', ...legacySuppressed.map(suppressedSinceAttribute));
    await this.ifVersion(siteId, page, update);
  }

  /** `update`, while `page.version` is the page's; a newer publish replaced the page otherwise, and brings it in line itself. */
  private async ifVersion(
    siteId: number,
    page: { type: PageType; id: string; version: string },
    update: Update,
  ): Promise<void> {
    update.when(`${update.name('version')} = ${update.value('version', page.version)}`);
    await conditionalUpdate(this.db, this.table, pageKey(siteId, page.type, page.id), update);
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
          ...new Update().setIfAbsent('awaited_at', now, { valueKey: 'now' }).input(),
        }),
      ),
    );
  }

  private async deleteChunks(siteId: number, type: PageType, id: string, version: string, count: number) {
    await batchWrite(
      this.db,
      this.table,
      Array.from({ length: count }, (_v, i) => ({
        DeleteRequest: { Key: chunkKey(siteId, type, id, version, i) },
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
        // A rename writes the item's slug alone: the document keeps the one it was published with.
        doc: { ...doc, slug: main.slug },
        status: main.status,
        deleted: main.deleted === true,
        created_at: main.created_at,
        updated_at: main.updated_at,
        revision: liveRevisionOf(main, mainItem),
        suppressed: [...suppressedLinksOf(main.suppressed, main), ...suppressedOfLinks(links)].sort(byId),
        relinked_at: newest([main.relinked_at, ...links.map((link) => link.relinked_at)]),
        summary: main.summary ?? null,
        community_answers: answers,
        notified_at: main.notified_at ?? null,
        summary_at: main.summary_at ?? null,
        publish_at: main.publish_at ?? null,
        unpublish_at: main.unpublish_at ?? null,
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
}
