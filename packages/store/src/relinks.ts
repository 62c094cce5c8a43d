import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate } from './conditional';
import { relinkRunKey } from './keys';
import { decodeRelinkRun } from './relinks.decoder';
import { Update } from './update';

/** A relink run is kept this long after its last change, then TTL tidies it (nothing reads it once it finished). */
const KEEP_SECONDS = 7 * 24 * 3600;

export interface RelinkRun {
  siteId: number;
  targetId: string;
  /** The notify that asked for the relink: one run per ask. */
  requestedAt: string;
}

/** Whether a run's plan is known and every one of its batches is done. */
export type RelinkProgress = 'finished' | 'unfinished';

/**
 * The progress of relinks' fan-outs, one item per run: the planner sets how many batches the plan
 * has, each batch adds its number to the done set. Both are one conditional write that answers the
 * item as it is after it, so whichever of them comes last sees the run finished, whatever their order,
 * and a batch delivered again is not counted twice. The item has a number per batch: at most
 * the 1,000 batches one relink plans (a few kilobytes).
 */
export class RelinkRunStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The plan of `run` has `batches` batches, all sent. */
  async planned(run: RelinkRun, batches: number, now = Date.now()): Promise<RelinkProgress> {
    const key = relinkRunKey(run.siteId, run.targetId, run.requestedAt);
    const update = new Update().set('planned', batches).set('expires_at', expiry(now));
    const out = await this.db.send(
      new UpdateCommand({ TableName: this.table, Key: key, ...update.input(), ReturnValues: 'ALL_NEW' }),
    );
    return progressOf(decodeRelinkRun(out.Attributes ?? {}, key));
  }

  /** Batch `batch` of `run` is done; a batch done before (a repeated delivery) is not counted again. */
  async batchDone(run: RelinkRun, batch: number, now = Date.now()): Promise<RelinkProgress> {
    const key = relinkRunKey(run.siteId, run.targetId, run.requestedAt);
    const count = new Update().add('done', new Set([batch]), { valueKey: 'batch' }).set('expires_at', expiry(now));
    count.when(`${count.absent('done')} OR NOT ${count.contains('done', batch, 'n')}`);
    const counted = await conditionalUpdate(this.db, this.table, key, count, {
      returns: 'ALL_NEW',
      decode: (item) => progressOf(decodeRelinkRun(item, key)),
    });
    if (counted.ok) return counted.attributes;
    // Counted before: the delivery that counted it may have died before it could finish the run.
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return progressOf(decodeRelinkRun(out.Item ?? {}, key));
  }
}

const expiry = (now: number) => Math.floor(now / 1000) + KEEP_SECONDS;

const progressOf = (item: { planned?: number; done?: Set<number> }): RelinkProgress =>
  item.planned !== undefined && (item.done?.size ?? 0) >= item.planned ? 'finished' : 'unfinished';
