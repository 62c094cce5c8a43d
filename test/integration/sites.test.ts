import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient, createStore, type Store } from '@cm/store';

let dynamo: EmbeddedDynamo;
let store: Store;
const db = () => createDocumentClient({ endpoint: dynamo.endpoint });

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, 'sites-test');
  store = createStore(db(), 'sites-test');
});
afterAll(() => dynamo.close());

describe('sites and API keys', () => {
  it('stores a key only as its SHA-256 hash', async () => {
    const { site, api_key } = await store.sites.create({ name: 'Shop', domain: 'shop.example.com', locale: 'US/en' });
    // A whole-table scan is fine in a test: it proves the raw key is nowhere in storage.
    const all = JSON.stringify((await db().send(new ScanCommand({ TableName: 'sites-test' }))).Items);
    expect(all).not.toContain(api_key);
    expect(all).toContain(createHash('sha256').update(api_key).digest('hex'));
    expect(await store.sites.siteIdForKey(api_key)).toBe(site.site_id);
    expect(await store.sites.get(site.site_id)).toMatchObject({ name: 'Shop', domain: 'shop.example.com', locale: 'US/en' });
  });

  it('knows no key it did not issue, and gives each site its own id', async () => {
    const a = await store.sites.create({ name: 'A', domain: 'a.example.com' });
    const b = await store.sites.create({ name: 'B', domain: 'b.example.com' });
    expect(b.site.site_id).toBe(a.site.site_id + 1);
    expect(a.site.locale).toBe('WW/en');
    expect(await store.sites.siteIdForKey(`${a.api_key}x`)).toBeNull();
    expect(await store.sites.siteIdForKey('')).toBeNull();
    expect(await store.sites.siteIdForKey(b.api_key)).toBe(b.site.site_id);
  });

  it('hands out distinct site ids to concurrent creators', async () => {
    const created = await Promise.all(Array.from({ length: 10 }, (_v, i) => store.sites.create({ name: `S${i}`, domain: 's.example.com' })));
    const ids = created.map((c) => c.site.site_id);
    expect(new Set(ids).size).toBe(10);
  });
});
