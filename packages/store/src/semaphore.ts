import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate, conditionalWrite, type Written } from './conditional';
import { decodeSemaphore, groupAttribute } from './counters.decoder';
import { errorFacts } from './errors';
import { semaphoreKey } from './keys';
import { Update } from './update';

export interface SemaphoreState {
  inflight: number;
  /** Lease owner → lease expiry (epoch ms). */
  leases: Record<string, number>;
  /** Group → the owners of its places (only groups holding one). */
  groups: Record<string, string[]>;
}

/** Whether an owner's lease (at `expiry`) is dead and may be revoked, its place taken back. */
export type Revocable = (owner: string, expiry: number) => Promise<boolean>;

/** Rounds of reading, revoking and trying again a take makes at most: each is lost only to another caller's progress. */
const TAKE_ROUNDS = 5;

/**
 * A place taken, or refused with why: the cap is full, the group holds its share of it, or the owner
 * holds a place already (another caller took it for the same owner).
 */
export type TakeOutcome =
  { taken: true; inflight: number } | { taken: false; inflight: number; refused: 'cap' | 'share' | 'held' };

const isMissingMap = (error: unknown) => {
  const { name, message } = errorFacts(error);
  return name === 'ValidationException' && /document path/i.test(message);
};

/**
 * A write that names an owner's lease (`leases.<owner>`), or `no map` when the item has no lease map
 * to name it in: the item was never made, and the engine refuses the path instead of the condition.
 */
async function leaseWrite<T>(write: Promise<Written<T>>): Promise<Written<T> | 'no map'> {
  try {
    return await write;
  } catch (error) {
    if (isMissingMap(error)) return 'no map';
    throw error;
  }
}

/** An owner's lease: its entry in the item's lease map. */
const lease = (owner: string) => ['leases', owner] as const;

/** Owner → its group, from a state's groups. */
export const groupsOf = (state: SemaphoreState) =>
  new Map(Object.entries(state.groups).flatMap(([group, owners]) => owners.map((owner) => [owner, group] as const)));

/**
 * A deployment-wide cap on work in flight: one item with the count and each owner's lease, and, for a
 * place taken with a share, its group's owners (a string set per group, so a group's count is the set's
 * size and the set is gone with its last owner: the item holds only what is in flight).
 * Every change (take, free, revoke an expired lease) is one conditional write of that item, so the
 * count always equals the number of leases, and each group's owners hold leases, whatever runs
 * concurrently and whoever dies.
 */
export class Semaphore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly name: string,
    private readonly max: number,
    /**
     * The places one group may hold at once, of a semaphore whose places are taken in groups (each
     * group's share of the cap); a free that names no group then reads the owner's.
     */
    private readonly groupPlaces?: number,
  ) {}

  /**
   * Takes a place for `owner` until `expiresAt` if fewer than `max` are taken (and, taken in a `group`,
   * the group holds fewer than its share, `groupPlaces`, checked in the same write). When refused, it first revokes the
   * leases `revocable` names (by default the expired ones), each only if unchanged, and tries again; it
   * is refused only when it read the cap, or its group's share, full of leases that are not to be
   * revoked. (A place another caller revoked but did not take, or freed meanwhile, is tried for again,
   * so a crowd of callers revoking together never leaves a place free while refusing one of them.)
   * An owner that holds a live place already is refused as `held` at once: another caller took it for it.
   */
  async take(
    owner: string,
    expiresAt: number,
    now = Date.now(),
    revocable?: Revocable,
    group?: string,
  ): Promise<TakeOutcome> {
    const share = this.shareOf(group);
    const judge: Revocable = revocable ?? (async (_owner, expiry) => expiry <= now);
    let outcome = await this.tryTake(owner, expiresAt, share);
    let shareFull: { inflight: number } | undefined;
    for (let round = 0; !outcome.taken && round < TAKE_ROUNDS; round++) {
      const state = await this.state();
      const leases = Object.entries(state.leases);
      const verdicts = await Promise.all(leases.map(([owner, expiry]) => judge(owner, expiry)));
      const expired = leases.filter((_lease, i) => verdicts[i]);
      shareFull =
        share && (state.groups[share.group]?.length ?? 0) >= share.places ? { inflight: state.inflight } : undefined;
      if (state.leases[owner] !== undefined && !expired.some(([expiredOwner]) => expiredOwner === owner))
        return { taken: false, inflight: state.inflight, refused: 'held' };
      if (expired.length === 0) {
        if (state.inflight >= this.max) return { taken: false, inflight: state.inflight, refused: 'cap' };
        if (shareFull) return { taken: false, inflight: state.inflight, refused: 'share' };
      }
      const groups = groupsOf(state);
      await Promise.all(expired.map(([owner, expiry]) => this.removeLease(owner, expiry, groups.get(owner))));
      outcome = await this.tryTake(owner, expiresAt, share);
    }
    // Refused after its last round: for the share when that round read it full, else for the cap.
    if (outcome.taken || !shareFull) return outcome;
    return { taken: false, inflight: shareFull.inflight, refused: 'share' };
  }

  /**
   * Renews `owner`'s lease under the cap until `expiresAt`: extends its lease when it still has one, else
   * takes a place as `take` does (its old lease was revoked, or it never had one), in `group`.
   */
  async renew(owner: string, expiresAt: number, now = Date.now(), group?: string): Promise<boolean> {
    const extend = new Update().set(lease(owner), expiresAt, { valueKey: 'expiry' });
    extend.when(extend.exists(lease(owner)));
    const extended = await leaseWrite(conditionalUpdate(this.db, this.table, semaphoreKey(this.name), extend));
    if (extended !== 'no map' && extended.ok) return true;
    // Its lease is gone (revoked, or the item never made): it takes a place again.
    return (await this.take(owner, expiresAt, now, undefined, group)).taken;
  }

  /** Frees the owner's place (of `group`, when it was taken in one); false when it has none (it was revoked, or freed already). */
  free(owner: string, group?: string): Promise<boolean> {
    return this.removeLease(owner, null, group);
  }

  /** Frees the owner's place only if its lease still ends at `expiry` (it was not renewed meanwhile). */
  revoke(owner: string, expiry: number, group?: string): Promise<boolean> {
    return this.removeLease(owner, expiry, group);
  }

  async state(): Promise<SemaphoreState> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: semaphoreKey(this.name), ConsistentRead: true }),
    );
    const item = decodeSemaphore(out.Item ?? {}, semaphoreKey(this.name));
    return { inflight: item.inflight ?? 0, leases: item.leases ?? {}, groups: item.groups };
  }

  /** A group's share of the cap, when the semaphore has groups and the place is taken in one. */
  private shareOf(group: string | undefined) {
    return group === undefined || this.groupPlaces === undefined ? undefined : { group, places: this.groupPlaces };
  }

  private async tryTake(
    owner: string,
    expiresAt: number,
    share: { group: string; places: number } | undefined,
  ): Promise<TakeOutcome> {
    const key = semaphoreKey(this.name);
    const take = new Update()
      .set(lease(owner), expiresAt, { valueKey: 'expiry' })
      .add('inflight', 1, { valueKey: 'one' });
    take.when(`${take.absent('inflight')} OR ${take.name('inflight')} < ${take.value('max', this.max)}`);
    take.when(take.absent(lease(owner)));
    if (share) {
      const group = groupAttribute(share.group);
      take.add(group, new Set([owner]), { valueKey: 'owners' });
      take.when(`${take.absent(group)} OR size(${take.name(group)}) < ${take.value('places', share.places)}`);
    }
    const taken = await leaseWrite(
      conditionalUpdate(this.db, this.table, key, take, {
        returns: 'UPDATED_NEW',
        decode: (item) => decodeSemaphore(item, key).inflight ?? 0,
      }),
    );
    if (taken === 'no map') {
      await this.create();
      return this.tryTake(owner, expiresAt, share);
    }
    // Refused: the cap or the group's share is full, or the owner holds a place; `take` reads which.
    return taken.ok
      ? { taken: true, inflight: taken.attributes }
      : { taken: false, inflight: this.max, refused: 'cap' };
  }

  /** The item with its empty lease map, made once; a concurrent maker wins harmlessly. */
  private async create(): Promise<void> {
    const put = new PutCommand({
      TableName: this.table,
      Item: { ...semaphoreKey(this.name), inflight: 0, leases: {} },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    // Refused: a concurrent caller made it first.
    await conditionalWrite(this.db, put);
  }

  /**
   * Removes a lease, its count and its place in its group together: any lease of the owner, or only one
   * still at `expiry` (a revoke). Of a grouped semaphore, the group of a lease named without one is read,
   * and a lease taken in no group (before groups) is removed by its owner alone, group named or not.
   */
  private async removeLease(owner: string, expiry: number | null, named?: string): Promise<boolean> {
    if (this.groupPlaces === undefined) return this.writeRemoval(owner, expiry, undefined);
    if (named !== undefined && (await this.writeRemoval(owner, expiry, named))) return true;
    const state = await this.state();
    const read = state.leases[owner];
    // Only the lease as read: one taken again meanwhile (another end, perhaps in a group) is left alone.
    if (read === undefined || (expiry !== null && read !== expiry)) return false;
    return this.writeRemoval(owner, read, groupsOf(state).get(owner));
  }

  private async writeRemoval(owner: string, expiry: number | null, group: string | undefined): Promise<boolean> {
    const removal = new Update().remove(lease(owner)).add('inflight', -1, { valueKey: 'minus' });
    removal.when(
      expiry === null
        ? removal.exists(lease(owner))
        : `${removal.name(lease(owner))} = ${removal.value('expiry', expiry)}`,
    );
    if (group !== undefined) {
      const attribute = groupAttribute(group);
      removal.deleteFromSet(attribute, new Set([owner]), { valueKey: 'owners' });
      removal.when(removal.contains(attribute, owner, 'owner'));
    }
    // Refused (or no lease map at all): the lease is not held as named, and nothing is freed.
    const removed = await leaseWrite(conditionalUpdate(this.db, this.table, semaphoreKey(this.name), removal));
    return removed !== 'no map' && removed.ok;
  }
}
