import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PageState, PageType } from '@cm/contract';
import { batchWrite, mapLimit, queryAll } from './batch';
import { conditionalUpdate } from './conditional';
import { Update } from './update';
import { linkEdgeKey, linksToPartition, pageKey, pageLinkKey, pageLinkPrefix, sitePartition } from './keys';
import { suppressedSinceAttribute } from './page-item';
import { decodeLegacyPageLinks, decodeLinkEdge, decodePageLink } from './links.decoder';

export interface PageRef {
  id: string;
  type: PageType;
}

export type RelinkOutcome = 'changed' | 'unchanged' | 'unlinked';

/** One link of a page as its link item has it. */
export interface PageLink {
  target: string;
  /** Since when relink (or the page's publish) keeps the link from readers; null while readers see it. */
  suppressed_since: string | null;
  /** When relink last changed the link. */
  relinked_at: string | null;
}

/** The links a page's link items say relink keeps from readers, each with since when. */
export const suppressedOfLinks = (links: readonly PageLink[]): PageState['suppressed'] =>
  links.flatMap((link) => (link.suppressed_since ? [{ id: link.target, since: link.suppressed_since }] : []));

/**
 * A page's link items (one Query; more only past 1 MB of them): all of them, or only those relink keeps
 * from readers. Read consistently when a write is decided on them.
 */
export async function queryPageLinks(
  db: DynamoDBDocumentClient,
  table: string,
  siteId: number,
  page: PageRef,
  options: { consistent?: boolean; suppressedOnly?: boolean },
): Promise<PageLink[]> {
  const items = await queryAll(db, {
    TableName: table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': sitePartition(siteId), ':sk': pageLinkPrefix(page.type, page.id) },
    ...(options.suppressedOnly ? { FilterExpression: 'attribute_exists(suppressed_since)' } : {}),
    ...(options.consistent ? { ConsistentRead: true } : {}),
  });
  return items.map((item) => decodePageLink(item));
}

/** Link items written in parallel at most, so a page of many links never floods the table. */
const PARALLEL_WRITES = 10;

/**
 * The link index, two items per link of a page Q to a target P: an edge under P's partition (the
 * linking page's id is its sort key), so "who links to P" is one Query; and a link item beside Q's page
 * item, which exists exactly while Q links to P and says whether relink keeps the link from Q's readers.
 * Nothing about a page's links grows its page item, however many it has. Relink never rewrites a page's
 * document, nor its `updated_at`: what readers see is derived from the link items, so restoring a link
 * is exact and order-free.
 */
export class LinkStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The page's links as indexed: its link items (one Query; more only past 1 MB of them). */
  async linksOf(siteId: number, page: PageRef): Promise<Map<string, PageLink>> {
    const links = await queryPageLinks(this.db, this.table, siteId, page, { consistent: true });
    return new Map(links.map((link) => [link.target, link]));
  }

  /**
   * Brings the index of `source` from the links it has indexed to `after`: the edge and link item of each
   * new link are put, those of each link it no longer has deleted, in batches of 25.
   */
  async reindex(siteId: number, source: PageRef, indexed: Iterable<string>, after: readonly string[]): Promise<void> {
    const had = new Set(indexed);
    const has = new Set(after);
    await batchWrite(this.db, this.table, [
      ...after
        .filter((target) => !had.has(target))
        .flatMap((target) => [
          { PutRequest: { Item: { ...linkEdgeKey(siteId, target, source.id), source_type: source.type } } },
          { PutRequest: { Item: { ...pageLinkKey(siteId, source.type, source.id, target), target } } },
        ]),
      ...[...had]
        .filter((target) => !has.has(target))
        .flatMap((target) => [
          { DeleteRequest: { Key: linkEdgeKey(siteId, target, source.id) } },
          { DeleteRequest: { Key: pageLinkKey(siteId, source.type, source.id, target) } },
        ]),
    ]);
  }

  /** One page of the pages that link to `targetId`, from the index: never a scan of the site. */
  async linkingPages(
    siteId: number,
    targetId: string,
    options: { cursor?: string; limit: number },
  ): Promise<{ pages: PageRef[]; cursor: string | null }> {
    const pk = linksToPartition(siteId, targetId);
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Limit: options.limit,
        ExclusiveStartKey: options.cursor ? { pk, sk: options.cursor } : undefined,
      }),
    );
    const pages = (out.Items ?? []).map(decodeLinkEdge).map((edge) => ({ id: edge.sk, type: edge.source_type }));
    return { pages, cursor: out.LastEvaluatedKey ? String(out.LastEvaluatedKey.sk) : null };
  }

  /**
   * Takes the link to `targetId` out of `page`, if the page still links to it (the index may lag
   * behind a republish: an edge whose page no longer links is dropped). Repeats change nothing.
   */
  async suppress(siteId: number, page: PageRef, targetId: string, now: string): Promise<RelinkOutcome> {
    const key = pageLinkKey(siteId, page.type, page.id, targetId);
    const update = new Update()
      .set('suppressed_since', now, { valueKey: 'now' })
      .set('relinked_at', now, { valueKey: 'now' });
    update.when(`${update.exists('pk')} AND ${update.absent('suppressed_since')}`);
    if ((await conditionalUpdate(this.db, this.table, key, update)).ok) return 'changed';
    const link = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key, ProjectionExpression: 'pk', ConsistentRead: true }),
    );
    if (link.Item) return 'unchanged';
    if (await this.legacySuppress(siteId, page, targetId, now)) return 'changed';
    const legacy = await this.legacyLinks(siteId, page);
    if (legacy.links.includes(targetId)) return 'unchanged';
    await this.reindex(siteId, page, [targetId], []);
    return 'unlinked';
  }

  /** Puts back exactly the link `suppress` took out of `page` for `targetId`. Repeats change nothing. */
  async restore(siteId: number, page: PageRef, targetId: string, now: string): Promise<RelinkOutcome> {
    const update = new Update().remove('suppressed_since').set('relinked_at', now, { valueKey: 'now' });
    update.when(update.exists('suppressed_since'));
    const key = pageLinkKey(siteId, page.type, page.id, targetId);
    if ((await conditionalUpdate(this.db, this.table, key, update)).ok) return 'changed';
    return (await this.legacyRestore(siteId, page, targetId, now)) ? 'changed' : 'unchanged';
  }

  /**
   * Keeps `links` of a page just published from its readers (their targets cannot be reached): each link
   * item is written whole, as given. A target that comes back meanwhile is
   * restored by the publish's second look, or by its own relink.
   */
  async suppressAtPublish(siteId: number, page: PageRef, links: readonly PageLink[]): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      links.map((link) => ({
        PutRequest: {
          Item: {
            ...pageLinkKey(siteId, page.type, page.id, link.target),
            target: link.target,
            ...(link.suppressed_since ? { suppressed_since: link.suppressed_since } : {}),
            ...(link.relinked_at ? { relinked_at: link.relinked_at } : {}),
          },
        },
      })),
    );
  }

  /** Restores each of `targets` in `page`, a few at a time. */
  async restoreAll(siteId: number, page: PageRef, targets: readonly string[], now: string): Promise<void> {
    await mapLimit(targets, PARALLEL_WRITES, (target) => this.restore(siteId, page, target, now));
  }

  /** A page item from before link items: its links and suppressed set (both absent once it was published again). */
  private async legacyLinks(siteId: number, page: PageRef) {
    const key = pageKey(siteId, page.type, page.id);
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key, ProjectionExpression: 'links', ConsistentRead: true }),
    );
    return { links: (out.Item && decodeLegacyPageLinks(out.Item, key).links) ?? [] };
  }

  /** Suppression on a page item from before link items, as it was done then: only while the item lists the link. */
  private async legacySuppress(siteId: number, page: PageRef, targetId: string, now: string): Promise<boolean> {
    const update = new Update()
      .add('suppressed', new Set([targetId]), { valueKey: 'targets' })
      .set(suppressedSinceAttribute(targetId), now, { valueKey: 'now' })
      .set('relinked_at', now, { valueKey: 'now' });
    const listed = update.contains('links', targetId, 'target');
    update.when(
      `${listed} AND (${update.absent('suppressed')} OR NOT ${update.contains('suppressed', targetId, 'target')})`,
    );
    return (await conditionalUpdate(this.db, this.table, pageKey(siteId, page.type, page.id), update)).ok;
  }

  private async legacyRestore(siteId: number, page: PageRef, targetId: string, now: string): Promise<boolean> {
    const update = new Update()
      .deleteFromSet('suppressed', new Set([targetId]), { valueKey: 'targets' })
      .remove(suppressedSinceAttribute(targetId))
      .set('relinked_at', now, { valueKey: 'now' });
    update.when(update.contains('suppressed', targetId, 'target'));
    return (await conditionalUpdate(this.db, this.table, pageKey(siteId, page.type, page.id), update)).ok;
  }
}
