import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isLive, type PageType } from '@cm/contract';
import { mapLimit } from './batch';
import { conditionalWrite } from './conditional';
import { decodePageAddress, decodePendingUrl } from './indexnow.decoder';
import { INDEXNOW_URL_PREFIX, indexNowMessageKey, indexNowPartition, indexNowUrlKey, pageKey } from './keys';
import { Update } from './update';

/** A site's URL waiting to be sent to IndexNow, and when it last changed. */
export interface PendingUrl {
  url: string;
  changed_at: string;
}

/** Writes one announcement or one send makes at once. */
const WRITES_IN_FLIGHT = 16;
/**
 * A site's message mark older than this belongs to a message never sent (the function stopped between
 * the mark and the send; a send that failed gives it back): the next change queues another.
 */
const MESSAGE_LOST_MS = 15 * 60_000;
/** What nothing sends is deleted by the table's TTL after a day. */
const KEEP_SECONDS = 86_400;

const expiresAt = (now: Date): number => Math.floor(now.getTime() / 1000) + KEEP_SECONDS;

/**
 * IndexNow's bookkeeping: each site's URLs waiting to be sent, one item per URL (so a URL that changes
 * again before it is sent is sent once), and the mark of the site's message on its way (so a burst of
 * changes queues one message).
 */
export class IndexNowStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Marks each URL changed at `now`: one UpdateItem each. */
  async mark(siteId: number, urls: readonly string[], now: Date): Promise<void> {
    await mapLimit(urls, WRITES_IN_FLIGHT, async (url) => {
      const update = new Update()
        .set('url', url)
        .set('changed_at', now.toISOString())
        .set('expires_at', expiresAt(now));
      await this.db.send(
        new UpdateCommand({ TableName: this.table, Key: indexNowUrlKey(siteId, url), ...update.input() }),
      );
    });
  }

  /**
   * Whether the caller is to queue the site's message: true unless one is on its way already (its mark
   * is there, and not so old that it was lost). One conditional PutItem.
   */
  async claimMessage(siteId: number, now: Date): Promise<boolean> {
    const claim = new PutCommand({
      TableName: this.table,
      Item: { ...indexNowMessageKey(siteId), queued_at: now.getTime(), expires_at: expiresAt(now) },
      ConditionExpression: 'attribute_not_exists(pk) OR queued_at < :lost',
      ExpressionAttributeValues: { ':lost': now.getTime() - MESSAGE_LOST_MS },
    });
    return (await conditionalWrite(this.db, claim)).ok;
  }

  /** The site's message is being handled: a change from now on queues another (what it reads next may miss that change). */
  async releaseMessage(siteId: number): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: indexNowMessageKey(siteId) }));
  }

  /** Up to `limit` of the site's pending URLs: one Query of its partition, paged. */
  async pending(siteId: number, limit: number): Promise<PendingUrl[]> {
    const found: PendingUrl[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :urls)',
          ExpressionAttributeValues: { ':pk': indexNowPartition(siteId), ':urls': INDEXNOW_URL_PREFIX },
          ProjectionExpression: '#url, changed_at',
          ExpressionAttributeNames: { '#url': 'url' },
          Limit: limit - found.length,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const { url, changed_at } = decodePendingUrl(item);
        found.push({ url, changed_at });
      }
      start = out.LastEvaluatedKey;
    } while (start && found.length < limit);
    return found;
  }

  /**
   * The URLs were sent (or will never be): each goes unless it changed again since it was read (that
   * change is not in what was sent, and stays pending). One conditional DeleteItem each.
   */
  async clear(siteId: number, sent: readonly PendingUrl[]): Promise<void> {
    await mapLimit(sent, WRITES_IN_FLIGHT, async (pending) => {
      const remove = new DeleteCommand({
        TableName: this.table,
        Key: indexNowUrlKey(siteId, pending.url),
        ConditionExpression: 'changed_at = :seen',
        ExpressionAttributeValues: { ':seen': pending.changed_at },
      });
      // Refused: it changed again, and is sent with the site's next request.
      await conditionalWrite(this.db, remove);
    });
  }

  /** What announcing a page's change needs of it: its slug and whether it is `noindex`; null when there is no such page. */
  async pageAddress(
    siteId: number,
    type: PageType,
    id: string,
  ): Promise<{ slug: string; noindex: boolean; live: boolean } | null> {
    const key = pageKey(siteId, type, id);
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: key,
        ProjectionExpression: 'slug, noindex, #status, deleted',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    if (!out.Item) return null;
    const page = decodePageAddress(out.Item, key);
    return {
      slug: page.slug,
      noindex: page.noindex === true,
      live: page.status !== undefined && isLive(page.status, page.deleted === true),
    };
  }
}
