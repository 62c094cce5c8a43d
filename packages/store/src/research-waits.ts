import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from './batch';
import { RESEARCH_WAITING_PARTITION, researchWaitingKey } from './keys';
import { decodeWaiting } from './research-waits.decoder';

export interface WaitingJob {
  jobId: string;
  since: string;
  /** The job's site, whose share of the cap it takes a place in (unknown of an item written before shares). */
  siteId?: number;
}

/**
 * Research jobs waiting for a place under the global cap, oldest first: one small item each, written
 * once when the job is queued and removed once when it is admitted. Waiting itself reads and writes
 * nothing; whoever frees a place (a job that ends, the sweep) admits the oldest.
 */
export class ResearchWaitStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async add(job: WaitingJob): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...researchWaitingKey(job.since, job.jobId),
          job_id: job.jobId,
          ...(job.siteId === undefined ? {} : { site_id: job.siteId }),
        },
      }),
    );
  }

  /** Up to `limit` of the jobs waiting longest (of those after `after`, when named): one Query. */
  async oldest(limit: number, after?: WaitingJob): Promise<WaitingJob[]> {
    if (limit <= 0) return [];
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': RESEARCH_WAITING_PARTITION },
        Limit: limit,
        ConsistentRead: true,
        ...(after ? { ExclusiveStartKey: researchWaitingKey(after.since, after.jobId) } : {}),
      }),
    );
    return (out.Items ?? []).map(decodeWaiting).map((item) => ({
      jobId: item.job_id,
      since: item.sk.slice(0, item.sk.length - item.job_id.length - 1),
      ...(item.site_id === undefined ? {} : { siteId: item.site_id }),
    }));
  }

  /** The jobs are admitted (or ended): they wait no more. Repeats change nothing. */
  async remove(jobs: readonly WaitingJob[]): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      jobs.map((job) => ({ DeleteRequest: { Key: researchWaitingKey(job.since, job.jobId) } })),
    );
  }
}
