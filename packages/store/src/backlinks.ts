import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeBacklinkSnapshot, type BacklinkSnapshot } from './backlinks.decoder';
import { backlinkPartition, backlinkSnapshotKey } from './keys';

export type { BacklinkSnapshot } from './backlinks.decoder';

/** Snapshots outlive their use (the trend comes with each one) by this long, then TTL tidies them away. */
const KEEP_SECONDS = 90 * 86_400;

/** Dated backlink snapshots per site and domain; a later run on the same day replaces that day's. */
export class BacklinkStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, snapshot: BacklinkSnapshot): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...backlinkSnapshotKey(siteId, snapshot.domain, snapshot.day),
          ...snapshot,
          expires_at: Math.floor(Date.parse(snapshot.taken_at) / 1000) + KEEP_SECONDS,
        },
      }),
    );
  }

  /** The newest snapshot of a domain: one Query of one item. */
  async latest(siteId: number, domain: string): Promise<BacklinkSnapshot | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :snap)',
        ExpressionAttributeValues: { ':pk': backlinkPartition(siteId, domain), ':snap': 'SNAP#' },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const item = out.Items?.[0];
    return item ? decodeBacklinkSnapshot(item) : null;
  }
}
