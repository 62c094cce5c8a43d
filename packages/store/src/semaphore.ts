import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './batch';
import { decodeSemaphore } from './counters.decoder';
import { errorFacts } from './errors';
import { semaphoreKey } from './keys';

export interface SemaphoreState {
  inflight: number;
  /** Holder → lease expiry (epoch ms). */
  leases: Record<string, number>;
}

/** Whether a holder's lease (at `expiry`) is dead and its place may be taken back. */
export type Reclaimable = (holder: string, expiry: number) => Promise<boolean>;

/** Rounds of reading, reclaiming and trying again a take makes at most: each is lost only to another caller's progress. */
const TAKE_ROUNDS = 5;

export interface TakeOutcome {
  taken: boolean;
  inflight: number;
}

const isMissingMap = (error: unknown) => {
  const { name, message } = errorFacts(error);
  return name === 'ValidationException' && /document path/i.test(message);
};

/**
 * A deployment-wide cap on work in flight: one item holding the count and each holder's lease.
 * Every change (take, free, reclaim an expired lease) is one conditional write of that item, so the
 * count always equals the number of leases, whatever runs concurrently and whoever dies.
 */
export class Semaphore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly name: string,
    private readonly max: number,
  ) {}

  /**
   * Takes a place for `holder` until `expiresAt` if fewer than `max` are taken. When full, it first
   * reclaims the leases `reclaimable` names (by default the expired ones), each only if unchanged, and
   * tries again; it is refused only when it read the cap full of leases that are not to be reclaimed. (A
   * place another caller reclaimed but did not take, or freed meanwhile, is tried for again, so a crowd
   * of callers reclaiming together never leaves a place free while refusing one of them.)
   */
  async take(holder: string, expiresAt: number, now = Date.now(), reclaimable?: Reclaimable): Promise<TakeOutcome> {
    const judge: Reclaimable = reclaimable ?? (async (_owner, expiry) => expiry <= now);
    let outcome = await this.tryTake(holder, expiresAt);
    for (let round = 0; !outcome.taken && round < TAKE_ROUNDS; round++) {
      const state = await this.state();
      const leases = Object.entries(state.leases);
      const verdicts = await Promise.all(leases.map(([owner, expiry]) => judge(owner, expiry)));
      const expired = leases.filter((_lease, i) => verdicts[i]);
      if (expired.length === 0 && state.inflight >= this.max) return { taken: false, inflight: state.inflight };
      await Promise.all(expired.map(([owner, expiry]) => this.release(owner, expiry)));
      outcome = await this.tryTake(holder, expiresAt);
    }
    return outcome;
  }

  /**
   * Keeps `holder` under the cap until `expiresAt`: extends its lease when it still has one, else
   * takes a place as `take` does (its old lease was reclaimed, or it never had one).
   */
  async hold(holder: string, expiresAt: number, now = Date.now()): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'SET leases.#holder = :expiry',
          ConditionExpression: 'attribute_exists(leases.#holder)',
          ExpressionAttributeNames: { '#holder': holder },
          ExpressionAttributeValues: { ':expiry': expiresAt },
        }),
      );
      return true;
    } catch (error) {
      if (!conditionFailed(error) && !isMissingMap(error)) throw error;
    }
    return (await this.take(holder, expiresAt, now)).taken;
  }

  /** Frees the holder's place; false when it holds none (it was reclaimed, or freed already). */
  free(holder: string): Promise<boolean> {
    return this.release(holder, null);
  }

  /** Frees the holder's place only if its lease still ends at `expiry` (it was not renewed meanwhile). */
  reclaim(holder: string, expiry: number): Promise<boolean> {
    return this.release(holder, expiry);
  }

  async state(): Promise<SemaphoreState> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: semaphoreKey(this.name), ConsistentRead: true }),
    );
    const item = out.Item ? decodeSemaphore(out.Item, semaphoreKey(this.name)) : {};
    return { inflight: item.inflight ?? 0, leases: item.leases ?? {} };
  }

  private async tryTake(holder: string, expiresAt: number): Promise<TakeOutcome> {
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'SET leases.#holder = :expiry ADD inflight :one',
          ConditionExpression:
            '(attribute_not_exists(inflight) OR inflight < :max) AND attribute_not_exists(leases.#holder)',
          ExpressionAttributeNames: { '#holder': holder },
          ExpressionAttributeValues: { ':expiry': expiresAt, ':one': 1, ':max': this.max },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { taken: true, inflight: decodeSemaphore(out.Attributes ?? {}, semaphoreKey(this.name)).inflight ?? 0 };
    } catch (error) {
      if (conditionFailed(error)) return { taken: false, inflight: this.max };
      if (!isMissingMap(error)) throw error;
    }
    await this.create();
    return this.tryTake(holder, expiresAt);
  }

  /** The item with its empty lease map, made once; a concurrent maker wins harmlessly. */
  private async create(): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...semaphoreKey(this.name), inflight: 0, leases: {} },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  /** Removes a lease and its count together: any lease of the holder, or only one still at `expiry` (a reclaim). */
  private async release(holder: string, expiry: number | null): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'REMOVE leases.#holder ADD inflight :minus',
          ConditionExpression: expiry === null ? 'attribute_exists(leases.#holder)' : 'leases.#holder = :expiry',
          ExpressionAttributeNames: { '#holder': holder },
          ExpressionAttributeValues: { ':minus': -1, ...(expiry === null ? {} : { ':expiry': expiry }) },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error) || isMissingMap(error)) return false;
      throw error;
    }
  }
}
