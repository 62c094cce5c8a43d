import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from './batch';
import { apiKeyKey, sequenceKey, siteKey } from './keys';

export interface Site {
  site_id: number;
  name: string;
  domain: string;
  locale: string;
  created_at: string;
}

export interface NewSite {
  name: string;
  domain: string;
  locale?: string;
}

const hashKey = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');

/** Sites and their API keys. A key is stored only as its SHA-256 hash. */
export class SiteStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Next value of a named atomic sequence (1, 2, …). */
  async nextId(sequence: string): Promise<number> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: sequenceKey(sequence),
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.value);
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
    const apiKey = `cmk_${randomBytes(32).toString('base64url')}`;
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

  /** The site an API key belongs to, or null. */
  async siteIdForKey(apiKey: string): Promise<number | null> {
    const keyHash = hashKey(apiKey);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: apiKeyKey(keyHash) }));
    const stored: unknown = out.Item?.key_hash;
    if (typeof stored !== 'string') return null;
    // The lookup is by hash already; the comparison is constant-time all the same.
    const same = timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(keyHash, 'hex'));
    return same ? Number(out.Item?.site_id) : null;
  }

  async get(siteId: number): Promise<Site | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: siteKey(siteId) }));
    return out.Item ? siteOf(out.Item) : null;
  }

  /**
   * Every site, in id order: ids come from one sequence, so the sites are read by key in batches of
   * 100, never by a scan. `onBatch` takes each batch as it is read.
   */
  async forEach(onBatch: (sites: Site[]) => Promise<void>): Promise<void> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: sequenceKey('site') }));
    const last = Number(out.Item?.value ?? 0);
    for (let first = 1; first <= last; first += 100) {
      const ids = Array.from({ length: Math.min(100, last - first + 1) }, (_v, i) => first + i);
      const items = await batchGet(this.db, this.table, ids.map(siteKey));
      await onBatch(items.map(siteOf).sort((a, b) => a.site_id - b.site_id));
    }
  }
}

const siteOf = (item: Record<string, unknown>): Site => {
  const { site_id, name, domain, locale, created_at } = item as unknown as Site;
  return { site_id, name, domain, locale, created_at };
};
