import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobError, JobStatus } from '@cm/contract';
import { conditionalUpdate } from './conditional';
import { decodeJob, type Job, type ResearchJobResult } from './jobs.decoder';
import { jobKey } from './keys';
import { Update } from './update';

export type { Job, ResearchJobInput, ResearchJobResult } from './jobs.decoder';

/** Jobs are kept a week, then TTL tidies them away. */
const KEEP_SECONDS = 7 * 86_400;

/** Queued jobs: created when a call is accepted, ended once by the worker. */
export class JobStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(job: Omit<Job, 'status' | 'updated_at'>): Promise<Job> {
    const stored: Job = { ...job, status: 'queued', updated_at: job.created_at };
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...jobKey(job.job_id),
          ...stored,
          expires_at: Math.floor(Date.parse(job.created_at) / 1000) + KEEP_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return stored;
  }

  /** The job, if it belongs to the site (another site's job is as absent as a missing one). */
  async get(jobId: string, siteId?: number): Promise<Job | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: jobKey(jobId), ConsistentRead: true }));
    const job = out.Item && decodeJob(out.Item);
    return job && (siteId === undefined || job.site_id === siteId) ? job : null;
  }

  /** Marks a queued job running, leased until `leaseUntil`; false when it has ended already (a repeated delivery). */
  async start(jobId: string, now: string, leaseUntil: number): Promise<boolean> {
    return this.transition(jobId, ['queued', 'running'], {
      status: 'running',
      updated_at: now,
      lease_until: leaseUntil,
    });
  }

  /** Extends a job's lease while it waits (for a place under the cap); false when it has ended. */
  async renew(jobId: string, now: string, leaseUntil: number): Promise<boolean> {
    return this.transition(jobId, ['queued', 'running'], { updated_at: now, lease_until: leaseUntil });
  }

  /** Ends a job once: a later end (a repeated delivery) changes nothing. */
  async finish(jobId: string, end: { result: ResearchJobResult } | { error: JobError }, now: string): Promise<boolean> {
    const status: JobStatus = 'result' in end ? 'succeeded' : 'failed';
    return this.transition(jobId, ['queued', 'running'], { status, updated_at: now, ...end });
  }

  /** Ends `job` failed with `error` if nothing changed it since it was read (`updated_at`): a job whose lease lapsed, unless it was renewed meanwhile. */
  async fail(job: Job, error: JobError, now: string): Promise<boolean> {
    return this.transition(
      job.job_id,
      ['queued', 'running'],
      { status: 'failed', updated_at: now, error },
      job.updated_at,
    );
  }

  private async transition(
    jobId: string,
    from: JobStatus[],
    set: Record<string, unknown>,
    unchangedSince?: string,
  ): Promise<boolean> {
    const update = new Update();
    for (const [field, value] of Object.entries(set)) update.set(field, value);
    update.when(update.oneOf('status', from, 'from'));
    if (unchangedSince !== undefined)
      update.when(`${update.name('updated_at')} = ${update.value('seen', unchangedSince)}`);
    return (await conditionalUpdate(this.db, this.table, jobKey(jobId), update)).ok;
  }
}
