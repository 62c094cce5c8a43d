import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './batch';
import { decodeSemaphore } from './counters.decoder';
import { errorFacts } from './errors';
import { semaphoreKey } from './keys';

export interface SemaphoreState {
  inflight: number;
  /** Lease owner → lease expiry (epoch ms). */
  leases: Record<string, number>;
}

/** Whether an owner's lease (at `expiry`) is dead and may be revoked, its place taken back. */
export type Revocable = (owner: string, expiry: number) => Promise<boolean>;

/** Rounds of reading, revoking and trying again a take makes at most: each is lost only to another caller's progress. */
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
 * A deployment-wide cap on work in flight: one item with the count and each owner's lease.
 * Every change (take, free, revoke an expired lease) is one conditional write of that item, so the
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
   * Takes a place for `owner` until `expiresAt` if fewer than `max` are taken. When full, it first
   * revokes the leases `revocable` names (by default the expired ones), each only if unchanged, and
   * tries again; it is refused only when it read the cap full of leases that are not to be revoked. (A
   * place another caller revoked but did not take, or freed meanwhile, is tried for again, so a crowd
   * of callers revoking together never leaves a place free while refusing one of them.)
   */
  async take(owner: string, expiresAt: number, now = Date.now(), revocable?: Revocable): Promise<TakeOutcome> {
    const judge: Revocable = revocable ?? (async (_owner, expiry) => expiry <= now);
    let outcome = await this.tryTake(owner, expiresAt);
    for (let round = 0; !outcome.taken && round < TAKE_ROUNDS; round++) {
      const state = await this.state();
      const leases = Object.entries(state.leases);
      const verdicts = await Promise.all(leases.map(([owner, expiry]) => judge(owner, expiry)));
      const expired = leases.filter((_lease, i) => verdicts[i]);
      if (expired.length === 0 && state.inflight >= this.max) return { taken: false, inflight: state.inflight };
      await Promise.all(expired.map(([owner, expiry]) => this.removeLease(owner, expiry)));
      outcome = await this.tryTake(owner, expiresAt);
    }
    return outcome;
  }

  /**
   * Renews `owner`'s lease under the cap until `expiresAt`: extends its lease when it still has one, else
   * takes a place as `take` does (its old lease was revoked, or it never had one).
   */
  async renew(owner: string, expiresAt: number, now = Date.now()): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'SET leases.#owner = :expiry',
          ConditionExpression: 'attribute_exists(leases.#owner)',
          ExpressionAttributeNames: { '#owner': owner },
          ExpressionAttributeValues: { ':expiry': expiresAt },
        }),
      );
      return true;
    } catch (error) {
      if (!conditionFailed(error) && !isMissingMap(error)) throw error;
    }
    return (await this.take(owner, expiresAt, now)).taken;
  }

  /** Frees the owner's place; false when it has none (it was revoked, or freed already). */
  free(owner: string): Promise<boolean> {
    return this.removeLease(owner, null);
  }

  /** Frees the owner's place only if its lease still ends at `expiry` (it was not renewed meanwhile). */
  revoke(owner: string, expiry: number): Promise<boolean> {
    return this.removeLease(owner, expiry);
  }

  async state(): Promise<SemaphoreState> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: semaphoreKey(this.name), ConsistentRead: true }),
    );
    const item = out.Item ? decodeSemaphore(out.Item, semaphoreKey(this.name)) : {};
    return { inflight: item.inflight ?? 0, leases: item.leases ?? {} };
  }

  private async tryTake(owner: string, expiresAt: number): Promise<TakeOutcome> {
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'SET leases.#owner = :expiry ADD inflight :one',
          ConditionExpression:
            '(attribute_not_exists(inflight) OR inflight < :max) AND attribute_not_exists(leases.#owner)',
          ExpressionAttributeNames: { '#owner': owner },
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
    return this.tryTake(owner, expiresAt);
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

  /** Removes a lease and its count together: any lease of the owner, or only one still at `expiry` (a revoke). */
  private async removeLease(owner: string, expiry: number | null): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: semaphoreKey(this.name),
          UpdateExpression: 'REMOVE leases.#owner ADD inflight :minus',
          ConditionExpression: expiry === null ? 'attribute_exists(leases.#owner)' : 'leases.#owner = :expiry',
          ExpressionAttributeNames: { '#owner': owner },
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
