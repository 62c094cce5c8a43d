import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PageType } from '@cm/contract';
import { batchWrite, conditionFailed } from './batch';
import { linkEdgeKey, linksToPartition, pageKey, suppressedSinceAttribute } from './keys';
import { decodeLinkEdge, decodePageLinks } from './links.decoder';

export interface PageRef {
  id: string;
  type: PageType;
}

export type RelinkOutcome = 'changed' | 'unchanged' | 'unlinked';

/**
 * The link index (an edge item per linking page, under the linked page's partition) and relink's
 * writes. Relink never rewrites a page's document, nor its `updated_at`: it adds the target to the
 * page's `suppressed` set (with since when), and what readers see is derived from it, so restoring a
 * link is exact and order-free.
 */
export class LinkStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Brings the edges of `source` from the links it had to the links it has. */
  async reindex(siteId: number, source: PageRef, before: readonly string[], after: readonly string[]): Promise<void> {
    const had = new Set(before);
    const has = new Set(after);
    await batchWrite(this.db, this.table, [
      ...after
        .filter((target) => !had.has(target))
        .map((target) => ({
          PutRequest: { Item: { ...linkEdgeKey(siteId, target, source.id), source_type: source.type } },
        })),
      ...before
        .filter((target) => !has.has(target))
        .map((target) => ({ DeleteRequest: { Key: linkEdgeKey(siteId, target, source.id) } })),
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
   * Takes the links to `targetId` out of `page`, if the page still links to it (the index may lag
   * behind a republish: an edge whose page no longer links is dropped). Repeats change nothing.
   */
  async suppress(siteId: number, page: PageRef, targetId: string, now: string): Promise<RelinkOutcome> {
    try {
      await this.touch(siteId, page, targetId, now, {
        update: 'ADD suppressed :targets SET #since = :now, relinked_at = :now',
        condition:
          'contains(links, :target) AND (attribute_not_exists(suppressed) OR NOT contains(suppressed, :target))',
      });
      return 'changed';
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    const key = pageKey(siteId, page.type, page.id);
    const current = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key, ProjectionExpression: 'links', ConsistentRead: true }),
    );
    const links = (current.Item && decodePageLinks(current.Item, key).links) ?? [];
    if (links.includes(targetId)) return 'unchanged';
    await this.reindex(siteId, page, [targetId], []);
    return 'unlinked';
  }

  /**
   * Whether any page links to `targetId`: one Query of one edge. A new page's relink is owed only when
   * pages were linking to it before it existed.
   */
  async hasLinkingPages(siteId: number, targetId: string): Promise<boolean> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': linksToPartition(siteId, targetId) },
        ProjectionExpression: 'pk',
        Limit: 1,
      }),
    );
    return (out.Items ?? []).length > 0;
  }

  /**
   * Takes the links to `targetIds` out of `page` as it was just published (`version`): pages it links to
   * that readers cannot reach already. Relink only acts on later changes of a target. False when a newer
   * publish replaced the page meanwhile (that publish decides for itself).
   */
  async suppressAtPublish(
    siteId: number,
    page: PageRef,
    version: string,
    targetIds: readonly string[],
    now: string,
  ): Promise<boolean> {
    const names = Object.fromEntries(targetIds.map((target, i) => [`#since${i}`, suppressedSinceAttribute(target)]));
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, page.type, page.id),
          UpdateExpression: `ADD suppressed :targets SET ${Object.keys(names)
            .map((name) => `${name} = :now`)
            .join(', ')}`,
          ConditionExpression: 'version = :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':targets': new Set(targetIds), ':now': now, ':version': version },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  /** Puts back exactly the links `suppress` took out of `page` for `targetId`. Repeats change nothing. */
  async restore(siteId: number, page: PageRef, targetId: string, now: string): Promise<RelinkOutcome> {
    try {
      await this.touch(siteId, page, targetId, now, {
        update: 'DELETE suppressed :targets REMOVE #since SET relinked_at = :now',
        condition: 'contains(suppressed, :target)',
      });
      return 'changed';
    } catch (error) {
      if (conditionFailed(error)) return 'unchanged';
      throw error;
    }
  }

  /** One conditional write to the page: the suppression change, and `relinked_at` moves (the editor's `updated_at` does not). */
  private async touch(
    siteId: number,
    page: PageRef,
    targetId: string,
    now: string,
    change: { update: string; condition: string },
  ) {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: pageKey(siteId, page.type, page.id),
        UpdateExpression: change.update,
        ConditionExpression: change.condition,
        ExpressionAttributeNames: { '#since': suppressedSinceAttribute(targetId) },
        ExpressionAttributeValues: { ':targets': new Set([targetId]), ':target': targetId, ':now': now },
      }),
    );
  }
}
