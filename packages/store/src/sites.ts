import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { API_KEY_PREFIX } from '@cm/contract';
import { batchGet } from './batch';
import { conditionalUpdate, conditionalWrite } from './conditional';
import { apiKeyKey, domainKey, sequenceKey, siteKey } from './keys';
import {
  decodeApiKey,
  decodeDomain,
  decodeSequence,
  decodeServedDomain,
  decodeSite,
  decodeSiteKeys,
  type Site,
} from './sites.decoder';
import { Update } from './update';

export type { Site } from './sites.decoder';

export interface NewSite {
  name: string;
  domain: string;
  locale?: string;
}

/** What an API key is good for: its site, and until when (epoch ms) when a rotation's grace period ends it; null when nothing ends it. */
export interface KeyGrant {
  site_id: number;
  valid_until: number | null;
  /** The domain the site's pages are served at, when one is registered to it (its pages' URLs are there). */
  served_domain: string | null;
}

/** The SHA-256 of an API key, as keys are stored (and as an OAuth grant names the key its owner signed in with). */
export const apiKeyHash = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');
const hashKey = apiKeyHash;

/**
 * A new IndexNow key: 32 hex digits. It only proves to search engines that a site's URLs are its own
 * (anyone can read it at the domain), so it is stored as it is, not as a hash.
 */
const newIndexNowKey = (): string => randomBytes(16).toString('hex');

/** Sites and their API keys. A key is stored only as its SHA-256 hash. */
export class SiteStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Next value of a named atomic sequence (1, 2, …). */
  async nextId(sequence: string): Promise<number> {
    const next = new Update().add('value', 1, { valueKey: 'one' });
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: sequenceKey(sequence),
        ...next.input(),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return decodeSequence(out.Attributes ?? {}, sequenceKey(sequence)).value;
  }

  async create(input: NewSite, now = new Date().toISOString()): Promise<{ site: Site; api_key: string }> {
    const site: Site = {
      site_id: await this.nextId('site'),
      name: input.name,
      domain: input.domain,
      locale: input.locale ?? 'WW/en',
      created_at: now,
    };
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...siteKey(site.site_id), ...site },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { site, api_key: await this.issueKey(site.site_id, now) };
  }

  /** A new API key for a site; only its hash is kept, so this is the one time it is seen. */
  async issueKey(siteId: number, now = new Date().toISOString()): Promise<string> {
    const apiKey = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const keyHash = hashKey(apiKey);
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...apiKeyKey(keyHash), key_hash: keyHash, site_id: siteId, created_at: now },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return apiKey;
  }

  /**
   * What an API key is good for, or null: its key record and its site must exist, and a rotation of the
   * site's keys after the key was issued retires it once the rotation's grace period is over.
   */
  lookupKey(apiKey: string, now = Date.now()): Promise<KeyGrant | null> {
    return this.lookupKeyHash(hashKey(apiKey), now);
  }

  /**
   * The same, by the key's hash: what an OAuth token names of the key its site's owner signed in with.
   * With `siteId`, the site the key must belong to (a token names it), the key and its site are read at
   * once: one round trip instead of two.
   */
  async lookupKeyHash(keyHash: string, now = Date.now(), siteId?: number): Promise<KeyGrant | null> {
    if (!/^[0-9a-f]{64}$/.test(keyHash)) return null;
    const readSite = (id: number) =>
      this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: siteKey(id),
          ProjectionExpression: 'site_id, keys_rotated_at, old_keys_until, keys_dead_before, served_domain',
        }),
      );
    const [out, early] = await Promise.all([
      this.db.send(new GetCommand({ TableName: this.table, Key: apiKeyKey(keyHash) })),
      siteId === undefined ? undefined : readSite(siteId),
    ]);
    if (!out.Item) return null;
    const key = decodeApiKey(out.Item);
    // The lookup is by hash already; the comparison is constant-time all the same.
    if (!timingSafeEqual(Buffer.from(key.key_hash, 'hex'), Buffer.from(keyHash, 'hex'))) return null;
    if (siteId !== undefined && key.site_id !== siteId) return null;
    const found = early ?? (await readSite(key.site_id));
    if (!found.Item) return null;
    const site = decodeSiteKeys(found.Item, siteKey(key.site_id));
    const createdAt = key.created_at;
    // Keys a rotation retired for good (or a revocation) stay dead, whatever grace a later rotation gives.
    if (site.keys_dead_before !== undefined && createdAt < site.keys_dead_before) return null;
    const rotatedAt = site.keys_rotated_at;
    // ISO instants of toISOString() compare as text; a key issued by the rotation itself is not older than it.
    const served_domain = site.served_domain ?? null;
    if (rotatedAt === undefined || createdAt >= rotatedAt)
      return { site_id: key.site_id, valid_until: null, served_domain };
    const until = Date.parse(String(site.old_keys_until));
    return until > now ? { site_id: key.site_id, valid_until: until, served_domain } : null;
  }

  /**
   * A new key for the site; every key it had keeps working for `graceSeconds` more, then stops. Null
   * when there is no such site. Rotating again within a grace period gives every older key the new one.
   */
  async rotateKeys(siteId: number, graceSeconds = 0, now = new Date()): Promise<string | null> {
    if (!(await this.get(siteId))) return null;
    const at = now.toISOString();
    // The new key first: should retiring the old ones fail, the site still has a working key, and a rerun retires both.
    const apiKey = await this.issueKey(siteId, at);
    return (await this.retireKeys(siteId, at, new Date(now.getTime() + graceSeconds * 1000).toISOString()))
      ? apiKey
      : null;
  }

  /** Every key of the site stops working now (`rotateKeys` gives it a new one); false when there is no such site. */
  revokeKeys(siteId: number, now = new Date()): Promise<boolean> {
    return this.retireKeys(siteId, now.toISOString(), now.toISOString());
  }

  /** One key stops working now: its record goes. The site it belonged to, or null when no such key was issued. */
  async revokeKey(apiKey: string): Promise<number | null> {
    const out = await this.db.send(
      new DeleteCommand({ TableName: this.table, Key: apiKeyKey(hashKey(apiKey)), ReturnValues: 'ALL_OLD' }),
    );
    return out.Attributes ? decodeApiKey(out.Attributes).site_id : null;
  }

  /**
   * Keys issued before `rotatedAt` work until `until`. The keys an earlier rotation or revocation retired
   * for good (its grace is over) move under `keys_dead_before`, which only moves forward, so a later
   * rotation's grace never brings them back. A read, then a write conditional on what was read.
   */
  private async retireKeys(siteId: number, rotatedAt: string, until: string): Promise<boolean> {
    for (;;) {
      const out = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: siteKey(siteId),
          ProjectionExpression: 'pk, keys_rotated_at, old_keys_until, keys_dead_before',
        }),
      );
      if (!out.Item) return false;
      const site = decodeSiteKeys(out.Item, siteKey(siteId));
      const previous = site.keys_rotated_at;
      const graceOver = previous !== undefined && String(site.old_keys_until) <= rotatedAt;
      const deadBefore = [site.keys_dead_before, graceOver ? previous : undefined]
        .filter((v) => v !== undefined)
        .sort()
        .pop();
      const retire = new Update()
        .set('keys_rotated_at', rotatedAt, { valueKey: 'at' })
        .set('old_keys_until', until, { valueKey: 'until' });
      if (deadBefore) retire.set('keys_dead_before', deadBefore, { valueKey: 'dead' });
      retire.when(
        previous === undefined
          ? `${retire.exists('pk')} AND ${retire.absent('keys_rotated_at')}`
          : `${retire.name('keys_rotated_at')} = ${retire.value('previous', previous)}`,
      );
      if ((await conditionalUpdate(this.db, this.table, siteKey(siteId), retire)).ok) return true;
      // Another rotation came between the read and the write: read again.
    }
  }

  /**
   * Registers `host` as the domain the site's pages are served at: an item of its own makes a domain
   * belong to one site at most. The domain first, then the site; the domain a site served before is
   * let go last. `taken`: another site has it; `no_site`: there is no such site.
   */
  async serveDomain(siteId: number, host: string): Promise<'served' | 'taken' | 'no_site'> {
    const site = await this.get(siteId);
    if (!site) return 'no_site';
    const claim = new PutCommand({
      TableName: this.table,
      Item: { ...domainKey(host), site_id: siteId, host },
      ConditionExpression: 'attribute_not_exists(pk) OR site_id = :site',
      ExpressionAttributeValues: { ':site': siteId },
    });
    if (!(await conditionalWrite(this.db, claim)).ok) return 'taken';
    const serve = new Update()
      .set('served_domain', host, { valueKey: 'host' })
      .setIfAbsent('indexnow_key', newIndexNowKey(), { valueKey: 'key' });
    // A site deleted since it was read fails the write (the domain's claim then serves nothing).
    await this.db.send(
      new UpdateCommand({ TableName: this.table, Key: siteKey(siteId), ...serve.when(serve.exists('pk')).input() }),
    );
    if (site.served_domain && site.served_domain !== host) await this.giveBackDomain(site.served_domain, siteId);
    return 'served';
  }

  /**
   * The site's IndexNow key, made now if it has none (a site served at its domain before keys were
   * made); null when there is no such site. One UpdateItem.
   */
  async indexNowKey(siteId: number): Promise<string | null> {
    const key = siteKey(siteId);
    const ensure = new Update().setIfAbsent('indexnow_key', newIndexNowKey(), { valueKey: 'key' });
    const written = await conditionalUpdate(this.db, this.table, key, ensure.when(ensure.exists('pk')), {
      returns: 'ALL_NEW',
      decode: decodeSite,
    });
    // Refused: there is no such site.
    return written.ok ? (written.attributes.indexnow_key ?? null) : null;
  }

  /** The site's pages are served under the deployment's address again; false when it served no domain (or is no site). */
  async stopServingDomain(siteId: number): Promise<boolean> {
    const key = siteKey(siteId);
    const stop = new Update().remove('served_domain');
    const stopped = await conditionalUpdate(this.db, this.table, key, stop.when(stop.exists('pk')), {
      returns: 'UPDATED_OLD',
      decode: (item) => decodeServedDomain(item, key).served_domain,
    });
    // Refused: there is no such site.
    if (!stopped.ok) return false;
    const host = stopped.attributes;
    if (host === undefined) return false;
    await this.giveBackDomain(host, siteId);
    return true;
  }

  /** The domain's claim goes, if it is still the site's. */
  private async giveBackDomain(host: string, siteId: number): Promise<void> {
    const remove = new DeleteCommand({
      TableName: this.table,
      Key: domainKey(host),
      ConditionExpression: 'site_id = :site',
      ExpressionAttributeValues: { ':site': siteId },
    });
    // Refused: another site registered it since, and it is that site's now.
    await conditionalWrite(this.db, remove);
  }

  /**
   * The site `host` is registered to, or null. The site must also name it as the domain it serves: a
   * registration that a failed change left behind serves nothing.
   */
  async siteOfDomain(host: string): Promise<Site | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: domainKey(host) }));
    if (!out.Item) return null;
    const site = await this.get(decodeDomain(out.Item).site_id);
    return site?.served_domain === host ? site : null;
  }

  async get(siteId: number): Promise<Site | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: siteKey(siteId) }));
    return out.Item ? decodeSite(out.Item) : null;
  }

  /** The sites of `ids` that exist, in id order: one BatchGetItem per 100. */
  async getMany(ids: readonly number[]): Promise<Site[]> {
    const items = await batchGet(this.db, this.table, ids.map(siteKey));
    return items.map(decodeSite).sort((a, b) => a.site_id - b.site_id);
  }

  /** Marks the site as tracking rankings (kept once set: a site that stops costs its daily run one Query). */
  async markRankTracking(siteId: number): Promise<void> {
    const mark = new Update().set('rank_tracking', true, { valueKey: 'yes' });
    mark.when(`${mark.exists('pk')} AND ${mark.absent('rank_tracking')}`);
    // Refused: marked already, or no such site.
    await conditionalUpdate(this.db, this.table, siteKey(siteId), mark);
  }

  /** Pauses (since `pausedAt`, or since it was paused already) or resumes (null) the monitoring of the site's competitors: the site after it, or null when there is no site. */
  async pauseCompetitors(siteId: number, pausedAt: string | null): Promise<Site | null> {
    const pause =
      pausedAt === null
        ? new Update().remove('competitors_paused_at')
        : new Update().setIfAbsent('competitors_paused_at', pausedAt, { valueKey: 'at' });
    const paused = await conditionalUpdate(this.db, this.table, siteKey(siteId), pause.when(pause.exists('pk')), {
      returns: 'ALL_NEW',
      decode: decodeSite,
    });
    // Refused: there is no such site.
    return paused.ok ? paused.attributes : null;
  }

  /**
   * The last site id given: every site has an id from 1 to it (ids come from one sequence, so sites
   * are found by key, never by a scan). One GetItem.
   */
  async lastId(): Promise<number> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: sequenceKey('site') }));
    return out.Item ? decodeSequence(out.Item, sequenceKey('site')).value : 0;
  }
}
