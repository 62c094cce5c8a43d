import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SERVICE_LIMITS, type PageDoc, type PageType } from '@cm/contract';
import { contentHash } from '@cm/core';
import { batchWrite, queryAll } from './batch';
import { INLINE_LIMIT_BYTES, splitChunks } from './codec';
import { decodeCursorPositions, encodeCursor, ONE_POSITION } from './cursor';
import {
  chunkPrefix,
  pageKey,
  revisionChunkKey,
  revisionChunkPartition,
  revisionKey,
  revisionPartition,
  sitePartition,
} from './keys';
import { decodeDoc, type PageItem } from './pages.decoder';
import {
  decodeChunkData,
  decodeLive,
  decodeVersion,
  decodeReplaced,
  decodeRevision,
  decodeRevisionHead,
  decodeRevisionKey,
  type ReplacedItem,
  type VersionItem,
  type RevisionHead,
} from './revisions.decoder';

/*
 * A page's revisions: the versions its publishes replaced, kept in items of their own (never on the page
 * item), the newest `revisionsKept` for at most `revisionsKeptDays` (docs/api/limits.md).
 */

/**
 * A version's revision id: when its publish was stored (base36 ms, which sorts by time as a `version`
 * does) and its content, so the id is the same wherever the version is read, live or kept. A version
 * stored before revisions were kept is named by its `version`.
 */
const revisionIdOf = (item: Pick<VersionItem, 'version' | 'content_hash' | 'stored_at'>): string =>
  item.stored_at && item.content_hash
    ? `${Date.parse(item.stored_at).toString(36)}${item.content_hash.slice(0, 12)}`
    : item.version;

/**
 * The live revision's id of a page item read whole, from the item as decodePage gave it (`page`): its
 * version, hash and store time are decoded there already. One without a version is decoded again, to
 * fail as a version's item does.
 */
export const liveRevisionOf = (page: PageItem, item: Record<string, unknown>): string =>
  page.version === undefined
    ? revisionIdOf(decodeVersion(item))
    : revisionIdOf({ version: page.version, content_hash: page.content_hash, stored_at: page.stored_at });

const DAY_SECONDS = 24 * 60 * 60;
/** The attributes a listing reads: a revision's all but its document. */
const HEAD_ATTRIBUTES = [
  'revision_id',
  'slug',
  'title',
  'status',
  'updated_at',
  'ai_model',
  'stored_at',
  'replaced_at',
  'chunks',
  'expires_at',
];

type PageRef = { type: PageType; id: string };

export interface LiveRevision {
  revision: string;
  slug: string;
  updated_at: string;
  /** Null for a version stored before revisions were kept. */
  content_hash: string | null;
}

/** A revision with its document. */
export interface StoredRevision extends RevisionHead {
  doc: PageDoc;
}

export class RevisionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Keeps the version a publish replaced (`replaced`: its page item as the publish's write answered it)
   * as a revision, unless the publish brought the same content (`hash`). Called before the replaced
   * version's chunks are deleted: a large document's chunks are read and kept under the revision. Then
   * the page's revisions past the newest `revisionsKept` are deleted (one Query of their keys).
   */
  async keep(siteId: number, page: PageRef, replaced: Record<string, unknown>, hash: string, now: string) {
    const old = decodeReplaced(replaced);
    if (old.content_hash === hash) return;
    const bytes = old.doc ?? (await this.pageChunks(siteId, page, old.version));
    const doc = decodeDoc(bytes, pageKey(siteId, page.type, page.id));
    // A page item from before content hashes were kept: its document says whether the content changed.
    if (old.content_hash === undefined && contentHash(doc) === hash) return;
    const expiresAt = Math.floor(Date.parse(now) / 1000) + SERVICE_LIMITS.revisionsKeptDays * DAY_SECONDS;
    // In parallel with its own write (one round trip): the others past the newest `revisionsKept` but this one.
    await Promise.all([
      this.write(siteId, page, { old, doc, bytes, now, expiresAt }),
      this.prune(siteId, page, revisionIdOf(old)),
    ]);
  }

  private async write(
    siteId: number,
    page: PageRef,
    revision: { old: ReplacedItem; doc: PageDoc; bytes: Uint8Array; now: string; expiresAt: number },
  ): Promise<void> {
    const { old, doc, bytes, now, expiresAt } = revision;
    const id = revisionIdOf(old);
    const chunks = bytes.length > INLINE_LIMIT_BYTES ? splitChunks(Buffer.from(bytes)) : [];
    if (chunks.length > 0)
      await batchWrite(
        this.db,
        this.table,
        chunks.map((data, i) => ({
          PutRequest: {
            Item: { ...revisionChunkKey(siteId, page.type, page.id, id, i), data, expires_at: expiresAt },
          },
        })),
      );
    // Chunks first: a revision item only ever points at complete chunks.
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...revisionKey(siteId, page.type, page.id, id),
          revision_id: id,
          slug: old.slug,
          title: old.title,
          status: doc.status,
          updated_at: old.updated_at,
          ai_model: doc.ai_model,
          stored_at: old.stored_at ?? null,
          replaced_at: now,
          chunks: chunks.length,
          expires_at: expiresAt,
          ...(chunks.length === 0 ? { doc: bytes } : {}),
        },
      }),
    );
  }

  /** The page's revisions past the newest `revisionsKept` once `kept` is (the newest) among them, deleted with their chunks. */
  private async prune(siteId: number, page: PageRef, kept: string): Promise<void> {
    const keys = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': revisionPartition(siteId, page.type, page.id) },
      ProjectionExpression: 'sk, chunks',
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    const others = keys.map(decodeRevisionKey).filter((key) => key.sk !== kept);
    const past = others.slice(SERVICE_LIMITS.revisionsKept - 1);
    if (past.length === 0) return;
    await batchWrite(
      this.db,
      this.table,
      past.flatMap(({ sk, chunks }) => [
        { DeleteRequest: { Key: revisionKey(siteId, page.type, page.id, sk) } },
        ...Array.from({ length: chunks }, (_v, i) => ({
          DeleteRequest: { Key: revisionChunkKey(siteId, page.type, page.id, sk, i) },
        })),
      ]),
    );
  }

  /** The page's revisions, newest first, without their documents; those past their time are left out. */
  async list(
    siteId: number,
    page: PageRef,
    options: { limit: number; cursor?: string; now: string },
  ): Promise<{ items: RevisionHead[]; next_cursor: string | null }> {
    const pk = revisionPartition(siteId, page.type, page.id);
    const after = options.cursor === undefined ? undefined : decodeCursorPositions(options.cursor, ONE_POSITION)[0];
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        // TTL deletes an item within days of its time: until then it is left out here.
        FilterExpression: 'expires_at > :now',
        ExpressionAttributeValues: { ':pk': pk, ':now': Math.floor(Date.parse(options.now) / 1000) },
        ProjectionExpression: HEAD_ATTRIBUTES.map((_a, i) => `#a${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(HEAD_ATTRIBUTES.map((a, i) => [`#a${i}`, a])),
        ScanIndexForward: false,
        Limit: options.limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: after } }),
      }),
    );
    const last = out.LastEvaluatedKey;
    return {
      items: (out.Items ?? []).map(decodeRevisionHead),
      next_cursor: last ? encodeCursor([String(last.sk)]) : null,
    };
  }

  /** The page's live revision, its slug, `updated_at` and content hash; null when there is no such page. */
  async live(siteId: number, page: PageRef): Promise<LiveRevision | null> {
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, page.type, page.id),
        ProjectionExpression: 'version, slug, content_hash, stored_at, updated_at',
        ConsistentRead: true,
      }),
    );
    // A mark that pages linking to it left before its first publish has no version: no page yet.
    if (!out.Item || !('version' in out.Item)) return null;
    const live = decodeLive(out.Item);
    return {
      revision: revisionIdOf(live),
      slug: live.slug,
      updated_at: live.updated_at,
      content_hash: live.content_hash ?? null,
    };
  }

  /** A revision with its document; null when the page has none of that id (or it is past its time). */
  async get(siteId: number, page: PageRef, revisionId: string, now: string): Promise<StoredRevision | null> {
    const key = revisionKey(siteId, page.type, page.id, revisionId);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    if (!out.Item) return null;
    const revision = decodeRevision(out.Item);
    if (revision.expires_at <= Date.parse(now) / 1000) return null;
    const bytes =
      revision.doc ??
      Buffer.concat(
        (
          await queryAll(this.db, {
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
            ExpressionAttributeValues: {
              ':pk': revisionChunkPartition(siteId, page.type, page.id),
              ':sk': `${revisionId}#`,
            },
            ConsistentRead: true,
          })
        ).map(decodeChunkData),
      );
    return { ...revision, doc: decodeDoc(bytes, key) };
  }

  /** The chunks of a page's document of `version`, in order, joined. */
  private async pageChunks(siteId: number, page: PageRef, version: string): Promise<Buffer> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': sitePartition(siteId), ':sk': chunkPrefix(page.type, page.id, version) },
      ConsistentRead: true,
    });
    return Buffer.concat(items.map(decodeChunkData));
  }
}
