import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backlinkPartition, backlinkSnapshotKey } from './keys';

/** What monitoring stores of a domain on a day: its profile and, for the site's own domain, its link gap. */
export interface BacklinkSnapshot<Profile = Record<string, unknown>, Gap = Record<string, unknown>> {
  domain: string;
  day: string;
  taken_at: string;
  data_source: string;
  profile: Profile;
  /** The site's domain only: domains linking to its competitors and not to it. */
  gap?: Gap[];
}

/** Snapshots outlive their use (the trend comes with each one) by this long, then TTL tidies them away. */
const KEEP_SECONDS = 90 * 86_400;

/** Dated backlink snapshots per site and domain; a later run on the same day replaces that day's. */
export class BacklinkStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, snapshot: BacklinkSnapshot<unknown, unknown>): Promise<void> {
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
  async latest<P, G>(siteId: number, domain: string): Promise<BacklinkSnapshot<P, G> | null> {
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
    if (!item) return null;
    const { pk: _pk, sk: _sk, expires_at: _expires, ...snapshot } = item;
    return snapshot as BacklinkSnapshot<P, G>;
  }
}
