import { DeleteCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite, queryAll } from './batch';
import { conditionalUpdate } from './conditional';
import {
  oauthGrantIndexKey,
  oauthGrantPartition,
  oauthIdHash,
  oauthKey,
  oauthKeyAttemptsKey,
  oauthKeyOfPk,
  oauthSessionUidKey,
  type Key,
} from './keys';
import { decodeGrantIndexItem, decodeOAuthItem, decodeSessionUidItem } from './oauth.decoder';
import { Update } from './update';

/** What the authorization server stores of a thing: its own fields, as it gives them. */
export type OAuthPayload = Record<string, unknown>;

/** How a one-use thing's use went: used now, used before (a replay), or there is no such thing. */
export type Consumption = 'consumed' | 'already' | 'missing';

const sha256 = oauthIdHash;

/**
 * The session's own id stays in its payload: a session is found by its uid too, and must come back
 * with its id. It lets nobody act on a site (the consent page asks for the site's key every time).
 */
const KEEPS_ID = new Set(['Session']);

/**
 * The OAuth authorization server's state (oidc-provider's, through its adapter): access and refresh
 * tokens, codes, grants, sessions, interactions and registered clients. Every one is found by the
 * SHA-256 of its id, which for a token or a code is the token itself: only the hash is stored. A
 * grant's tokens and codes each have an index item in the grant's partition, so revoking a grant (a
 * reused refresh token revokes its family) is one Query and batch deletes, never a scan.
 */
export class OAuthStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Stores `payload` as `model`'s `id`, for `expiresIn` seconds; with its grant's index item, in one batch. */
  async upsert(model: string, id: string, payload: OAuthPayload, expiresIn?: number, now = Date.now()) {
    const idHash = sha256(id);
    const key = oauthKey(model, idHash);
    const { jti: _jti, consumed: _consumed, ...rest } = payload;
    const kept = KEEPS_ID.has(model) ? payload : rest;
    const expiresAt = expiresIn === undefined ? undefined : Math.floor(now / 1000) + expiresIn;
    const grantHash = typeof payload.grantId === 'string' ? sha256(payload.grantId) : undefined;
    const uidHash = typeof payload.uid === 'string' ? sha256(payload.uid) : undefined;
    const expiry = expiresAt === undefined ? {} : { expires_at: expiresAt };
    const puts: Record<string, unknown>[] = [
      {
        ...key,
        model,
        payload: JSON.stringify(kept),
        ...expiry,
        ...(grantHash ? { grant_hash: grantHash } : {}),
        ...(uidHash ? { uid_hash: uidHash } : {}),
      },
    ];
    if (grantHash) puts.push({ ...oauthGrantIndexKey(grantHash, model, idHash), target_pk: key.pk, ...expiry });
    if (uidHash && model === 'Session') puts.push({ ...oauthSessionUidKey(uidHash), session_hash: idHash, ...expiry });
    await batchWrite(
      this.db,
      this.table,
      puts.map((Item) => ({ PutRequest: { Item } })),
    );
  }

  /**
   * Stores a registered client for `unusedSeconds`. An identical registration (whose id is made of its
   * metadata) writes the same client again, its time renewed while no sign-in used it; once one has,
   * it is kept as it is.
   */
  async registerClient(id: string, payload: OAuthPayload, unusedSeconds: number, now = Date.now()): Promise<void> {
    const register = new Update()
      .set('model', 'Client')
      .set('payload', JSON.stringify(payload))
      .set('expires_at', Math.floor(now / 1000) + unusedSeconds, { valueKey: 'expires' });
    register.when(`${register.absent('pk')} OR ${register.exists('expires_at')}`);
    // Refused: a sign-in used the client, which is kept as it is.
    await conditionalUpdate(this.db, this.table, oauthKey('Client', sha256(id)), register);
  }

  /** Keeps registered client `id` for good once a sign-in used it (it expired unused until then). */
  async keepClient(id: string): Promise<void> {
    const keep = new Update().remove('expires_at');
    // Refused: kept already, or a client not registered here (a metadata document's).
    await conditionalUpdate(this.db, this.table, oauthKey('Client', sha256(id)), keep.when(keep.exists('expires_at')));
  }

  /** `model`'s `id` as stored (its `jti` back in place, and `consumed` when it was used); undefined when there is none. */
  async find(model: string, id: string): Promise<OAuthPayload | undefined> {
    return this.byHash(model, sha256(id), id);
  }

  private async byHash(model: string, idHash: string, id?: string): Promise<OAuthPayload | undefined> {
    const key = oauthKey(model, idHash);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    if (!out.Item) return undefined;
    const item = decodeOAuthItem(out.Item, key);
    const payload: unknown = JSON.parse(item.payload);
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw new Error(`oauth item ${key.pk} holds no payload object`);
    return {
      ...payload,
      ...(id === undefined ? {} : { jti: id }),
      ...(item.consumed_at === undefined ? {} : { consumed: item.consumed_at }),
    };
  }

  /** The session with `uid`: its uid's item, then the session. */
  async findSessionByUid(uid: string): Promise<OAuthPayload | undefined> {
    const key = oauthSessionUidKey(sha256(uid));
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? this.byHash('Session', decodeSessionUidItem(out.Item, key).session_hash) : undefined;
  }

  /**
   * Marks a one-use thing used: one conditional write, so of two concurrent uses of a code or a
   * refresh token exactly one is `consumed`, and the other learns it came `already`.
   */
  async consume(model: string, id: string, now = Date.now()): Promise<Consumption> {
    const key = oauthKey(model, sha256(id));
    if ((await this.markUsed(key, now)).ok) return 'consumed';
    // Refused: used before, or never there. One more read tells which.
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? 'already' : 'missing';
  }

  /** Marks the thing at `key` used at `now`, if it is there and was never used. */
  private markUsed(key: Key, now: number) {
    const use = new Update().set('consumed_at', Math.floor(now / 1000), { valueKey: 'now' });
    use.when(`${use.exists('pk')} AND ${use.absent('consumed_at')}`);
    return conditionalUpdate(this.db, this.table, key, use);
  }

  /** Records that refresh token `id`, used, was answered with `successorId`: the one its family rotated to. */
  async recordSuccessor(model: string, id: string, successorId: string): Promise<void> {
    const link = new Update().set('successor_hash', sha256(successorId), { valueKey: 'successor' });
    // Refused: revoked meanwhile, and there is nothing left to link.
    await conditionalUpdate(this.db, this.table, oauthKey(model, sha256(id)), link.when(link.exists('pk')));
  }

  /**
   * The hash of the successor of used refresh token `id` when a second use of `id` is a retry of a
   * lost answer (docs/api/oauth.md#the-authorization-server): `id` was first used at most
   * `graceSeconds` ago, and the token that use answered is still there, never used. Else null.
   */
  async reuseGraceSuccessor(model: string, id: string, graceSeconds: number, now = Date.now()): Promise<string | null> {
    const read = async (idHash: string) => {
      const key = oauthKey(model, idHash);
      const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
      return out.Item ? decodeOAuthItem(out.Item, key) : undefined;
    };
    const used = await read(sha256(id));
    const successor = used?.successor_hash;
    if (used?.consumed_at === undefined || successor === undefined) return null;
    if (used.consumed_at < Math.floor(now / 1000) - graceSeconds) return null;
    const next = await read(successor);
    return next && next.consumed_at === undefined ? successor : null;
  }

  /**
   * Takes the grace for a second use of refresh token `id` whose successor is `successorHash`: unlinks
   * the successor (one conditional write, so of two retries at once one takes it), then marks it used
   * unless it was used meanwhile (then the second use is a reuse after all). Whether it was taken.
   */
  async takeReuseGrace(
    model: string,
    id: string,
    successorHash: string,
    graceSeconds: number,
    now = Date.now(),
  ): Promise<boolean> {
    const unlink = new Update().remove('successor_hash');
    unlink.when(
      `${unlink.name('successor_hash')} = ${unlink.value('successor', successorHash)} AND ` +
        `${unlink.name('consumed_at')} >= ${unlink.value('since', Math.floor(now / 1000) - graceSeconds)}`,
    );
    // Refused: another retry took it, or the grace has passed.
    if (!(await conditionalUpdate(this.db, this.table, oauthKey(model, sha256(id)), unlink)).ok) return false;
    // Marked used, not deleted: were the second use a thief's, the owner's later use of it is a reuse.
    return (await this.markUsed(oauthKey(model, successorHash), now)).ok;
  }

  /** Removes `model`'s `id` (its grant's index item goes with the grant, or expires with it). */
  async destroy(model: string, id: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: oauthKey(model, sha256(id)) }));
  }

  /**
   * Counts a key posted to the consent page from `address` in `window` (its count expires at
   * `expiresAt`, epoch seconds) while fewer than `limit` are counted: one conditional ADD, so of any
   * number at once no more than `limit` pass. False when the address has had them all.
   */
  takeKeyAttempt(address: string, window: number, limit: number, expiresAt: number): Promise<boolean> {
    const take = new Update()
      .add('attempts', 1, { valueKey: 'one' })
      .set('expires_at', expiresAt, { valueKey: 'expires' });
    take.when(`${take.absent('attempts')} OR ${take.name('attempts')} < ${take.value('limit', limit)}`);
    return this.addKeyAttempts(address, window, take);
  }

  /** Gives back an attempt that was a good key: only wrong keys count. */
  async giveBackKeyAttempt(address: string, window: number): Promise<void> {
    const giveBack = new Update().add('attempts', -1, { valueKey: 'minus' });
    giveBack.when(`${giveBack.name('attempts')} > ${giveBack.value('zero', 0)}`);
    // Refused at zero: nothing is left to give back.
    await this.addKeyAttempts(address, window, giveBack);
  }

  /** One conditional change of an address's count: false when its condition did not hold. */
  private async addKeyAttempts(address: string, window: number, change: Update): Promise<boolean> {
    const key = oauthKeyAttemptsKey(sha256(address), window);
    return (await conditionalUpdate(this.db, this.table, key, change)).ok;
  }

  /** Removes every token and code of grant `grantId`: one Query of its index, then batch deletes. */
  async revokeGrant(grantId: string): Promise<number> {
    const partition = oauthGrantPartition(sha256(grantId));
    const members = (
      await queryAll(this.db, {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ConsistentRead: true,
      })
    ).map(decodeGrantIndexItem);
    const keys = members.flatMap((m) => [oauthKeyOfPk(m.target_pk), { pk: m.pk, sk: m.sk }]);
    await batchWrite(
      this.db,
      this.table,
      keys.map((Key) => ({ DeleteRequest: { Key } })),
    );
    return members.length;
  }
}
