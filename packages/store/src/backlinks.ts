import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet, batchWrite } from './batch';
import { giveBackClaim, takeClaim } from './claims';
import { decodeBacklinkSnapshot, type BacklinkSnapshot } from './backlinks.decoder';
import { backlinkPartition, backlinkSnapshotKey, monitorClaimKey } from './keys';

export type { BacklinkSnapshot } from './backlinks.decoder';

/** Snapshots outlive their use (the trend comes with each one) by this long, then TTL tidies them away. */
const KEEP_SECONDS = 90 * 86_400;
/** A claim outlives its day by this long (a late redelivery still finds it), then TTL tidies it away. */
const CLAIM_KEEP_SECONDS = 2 * 86_400;

/** A domain's paid monitoring work on a day, claimed once: `work` names it, `runId` the run that claims it. */
export interface MonitorClaim {
  siteId: number;
  domain: string;
  work: string;
  runId: string;
}

/** Dated backlink snapshots per site and domain; a later run on the same day replaces that day's. */
export class BacklinkStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Writes snapshots of a site's domains, 25 to a request. */
  async put(siteId: number, snapshots: readonly BacklinkSnapshot[]): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      snapshots.map((snapshot) => ({
        PutRequest: {
          Item: {
            ...backlinkSnapshotKey(siteId, snapshot.domain, snapshot.day),
            ...snapshot,
            expires_at: Math.floor(Date.parse(snapshot.taken_at) / 1000) + KEEP_SECONDS,
          },
        },
      })),
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

  /**
   * The newest snapshot of each domain of the `days` days up to `day`: BatchGetItems of 100 keys (one for
   * a site's 11 domains over a week), no Query. A domain without one in that window has none.
   */
  async recentOf(
    siteId: number,
    domains: readonly string[],
    day: string,
    days: number,
  ): Promise<Map<string, BacklinkSnapshot>> {
    const start = Date.parse(`${day}T00:00:00.000Z`);
    const dayKeys = Array.from({ length: days }, (_v, i) =>
      new Date(start - i * 86_400_000).toISOString().slice(0, 10),
    );
    const items = await batchGet(
      this.db,
      this.table,
      domains.flatMap((domain) => dayKeys.map((d) => backlinkSnapshotKey(siteId, domain, d))),
    );
    const found = new Map<string, BacklinkSnapshot>();
    for (const snapshot of items.map((item) => decodeBacklinkSnapshot(item))) {
      const kept = found.get(snapshot.domain);
      if (!kept || kept.day < snapshot.day) found.set(snapshot.domain, snapshot);
    }
    return found;
  }

  /**
   * Claims the work for `claim.runId` with one conditional put: false when another run owns it (it
   * ran, or runs now). A claim given back (its run failed before paying for good) is taken again.
   */
  async claim(claim: MonitorClaim, now: Date): Promise<boolean> {
    return takeClaim(this.db, this.table, {
      ...monitorClaimKey(claim.siteId, claim.domain, claim.work),
      run_id: claim.runId,
      claimed_at: now.toISOString(),
      expires_at: Math.floor(now.getTime() / 1000) + CLAIM_KEEP_SECONDS,
    });
  }

  /** Gives a claim up, so another run may take the work: only while `claim.runId` still owns it. */
  async giveBack(claim: MonitorClaim, now: Date): Promise<void> {
    await giveBackClaim(this.db, this.table, monitorClaimKey(claim.siteId, claim.domain, claim.work), claim.runId, now);
  }
}
