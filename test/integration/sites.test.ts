import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_BUDGETS } from '@cm/contract';
import { ensureTable, runSites, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { monitoringMonthPrice } from '@cm/providers';
import { createSite } from '@cm/tools';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { given } from '../helpers/client';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

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
    expect(await store.sites.lookupKey(api_key)).toEqual({
      site_id: site.site_id,
      valid_until: null,
      served_domain: null,
    });
    expect(await store.sites.get(site.site_id)).toMatchObject({
      name: 'Shop',
      domain: 'shop.example.com',
      locale: 'US/en',
    });
  });

  it('knows no key it did not issue, and gives each site its own id', async () => {
    const a = await store.sites.create({ name: 'A', domain: 'a.example.com' });
    const b = await store.sites.create({ name: 'B', domain: 'b.example.com' });
    expect(b.site.site_id).toBe(a.site.site_id + 1);
    expect(a.site.locale).toBe('WW/en');
    expect(await store.sites.lookupKey(`${a.api_key}x`)).toBeNull();
    expect(await store.sites.lookupKey('')).toBeNull();
    expect((await store.sites.lookupKey(b.api_key))?.site_id).toBe(b.site.site_id);
  });

  it('hands out distinct site ids to concurrent creators', async () => {
    const created = await Promise.all(
      Array.from({ length: 10 }, (_v, i) => store.sites.create({ name: `S${i}`, domain: 's.example.com' })),
    );
    const ids = created.map((c) => c.site.site_id);
    expect(new Set(ids).size).toBe(10);
  });

  it("rotates a site's keys: the new key works, the old ones through the grace period only", async () => {
    const { site, api_key: old } = await store.sites.create(
      { name: 'Rotating', domain: 'rot.example.com' },
      '2030-01-01T00:00:00.000Z',
    );
    const at = new Date('2030-01-02T00:00:00.000Z');
    const fresh = await store.sites.rotateKeys(site.site_id, 60, at);
    expect(fresh).toMatch(/^cmk_/);
    const graceEnd = at.getTime() + 60_000;
    expect(await store.sites.lookupKey(given(fresh, 'the fresh'), graceEnd + 1)).toEqual({
      site_id: site.site_id,
      valid_until: null,
      served_domain: null,
    });
    expect(await store.sites.lookupKey(old, graceEnd - 1)).toEqual({
      site_id: site.site_id,
      valid_until: graceEnd,
      served_domain: null,
    });
    expect(await store.sites.lookupKey(old, graceEnd)).toBeNull();
    // Another rotation without grace retires the key before it at once.
    const third = await store.sites.rotateKeys(site.site_id, 0, new Date(graceEnd));
    expect(await store.sites.lookupKey(given(fresh, 'the fresh'), graceEnd)).toBeNull();
    expect(await store.sites.lookupKey(given(third, 'the third'), graceEnd)).toEqual({
      site_id: site.site_id,
      valid_until: null,
      served_domain: null,
    });
    expect(await store.sites.rotateKeys(999_999)).toBeNull();
  });

  it('never brings back a key a revocation or an ended grace retired, whatever grace a later rotation gives', async () => {
    const { site, api_key: leaked } = await store.sites.create(
      { name: 'Leaked', domain: 'leak.example.com' },
      '2030-01-01T00:00:00.000Z',
    );
    const revokedAt = new Date('2030-01-02T00:00:00.000Z');
    expect(await store.sites.revokeKeys(site.site_id, revokedAt)).toBe(true);
    // The recovery: a new key, with an hour's grace for the keys of the day.
    const recovered = await store.sites.rotateKeys(site.site_id, 3600, new Date(revokedAt.getTime() + 60_000));
    expect(await store.sites.lookupKey(leaked, revokedAt.getTime() + 120_000)).toBeNull();
    expect(
      (await store.sites.lookupKey(given(recovered, 'the recovered'), revokedAt.getTime() + 120_000))?.site_id,
    ).toBe(site.site_id);

    // A key rotated out without grace stays out when the next rotation has a grace period.
    const t0 = revokedAt.getTime() + 86_400_000;
    const second = await store.sites.rotateKeys(site.site_id, 0, new Date(t0));
    expect(await store.sites.lookupKey(given(recovered, 'the recovered'), t0 + 1)).toBeNull();
    const third = await store.sites.rotateKeys(site.site_id, 3600, new Date(t0 + 60_000));
    expect(await store.sites.lookupKey(given(recovered, 'the recovered'), t0 + 120_000)).toBeNull();
    expect(await store.sites.lookupKey(given(second, 'the second'), t0 + 120_000)).toEqual({
      site_id: site.site_id,
      valid_until: t0 + 60_000 + 3_600_000,
      served_domain: null,
    });
    expect((await store.sites.lookupKey(given(third, 'the third'), t0 + 120_000))?.valid_until).toBeNull();
  });

  it('revokes every key of a site, or one key; a key whose site is gone works no more', async () => {
    const { site, api_key: first } = await store.sites.create({ name: 'Revoked', domain: 'rev.example.com' });
    const second = await store.sites.issueKey(site.site_id);
    expect(await store.sites.revokeKey(first)).toBe(site.site_id);
    expect(await store.sites.revokeKey(first)).toBeNull();
    expect(await store.sites.lookupKey(first)).toBeNull();
    expect((await store.sites.lookupKey(second))?.site_id).toBe(site.site_id);
    expect(await store.sites.revokeKeys(site.site_id)).toBe(true);
    expect(await store.sites.lookupKey(second)).toBeNull();
    expect(await store.sites.revokeKeys(999_999)).toBe(false);

    const other = await store.sites.create({ name: 'Gone', domain: 'gone.example.com' });
    await db().send(
      new DeleteCommand({ TableName: 'sites-test', Key: { pk: `SITE#${other.site.site_id}`, sk: 'META' } }),
    );
    expect(await store.sites.lookupKey(other.api_key)).toBeNull();
  });

  describe('`npm run sites` rotate-key and revoke-key', () => {
    // The command in-process, as the CLI runs it (one test below runs the CLI itself).
    const cli = async (...args: string[]) => {
      const out = { stdout: '', stderr: '' };
      const code = await runSites(
        args,
        { log: (line) => (out.stdout += `${line}\n`), error: (line) => (out.stderr += `${line}\n`) },
        { DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: 'sites-test' },
      );
      return { code, ...out };
    };
    const printed = async (...args: string[]) => {
      const { code, stdout, stderr } = await cli(...args);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(stdout) as Record<string, unknown>;
    };

    it("reaches the local stack's DynamoDB on DYNAMODB_PORT when no endpoint is named, as `npm start` takes it", async () => {
      const port = new URL(dynamo.endpoint).port;
      const out = { stdout: '', stderr: '' };
      const code = await runSites(
        ['create', '--name', 'On its port', '--domain', 'port.example.com'],
        { log: (line) => (out.stdout += line), error: (line) => (out.stderr += line) },
        { DYNAMODB_PORT: port, TABLE_NAME: 'sites-test' },
      );
      expect({ code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(out.stdout)).toMatchObject({
        site_id: expect.any(Number),
        api_key: expect.stringMatching(/^cmk_/),
      });
    });

    it('rotate-key prints the new key; the old one keeps working for the grace period', async () => {
      const { site, api_key: old } = await store.sites.create({ name: 'CLI', domain: 'cli.example.com' });
      const before = Date.now();
      const rotated = await printed('rotate-key', '--site', String(site.site_id), '--grace-seconds', '600');
      expect(rotated).toEqual({ site_id: site.site_id, api_key: expect.stringMatching(/^cmk_[A-Za-z0-9_-]{43}$/) });
      expect(await store.sites.lookupKey(rotated.api_key as string)).toEqual({
        site_id: site.site_id,
        valid_until: null,
        served_domain: null,
      });
      const grant = await store.sites.lookupKey(old);
      expect(grant?.valid_until).toBeGreaterThanOrEqual(before + 600_000);
      expect(
        await store.sites.lookupKey(old, given(given(grant, 'the grant').valid_until, 'the valid_until')),
      ).toBeNull();

      // Without --grace-seconds the older keys stop at once.
      const again = await printed('rotate-key', '--site', String(site.site_id));
      expect(await store.sites.lookupKey(rotated.api_key as string)).toBeNull();
      expect(await store.sites.lookupKey(old)).toBeNull();
      expect((await store.sites.lookupKey(again.api_key as string))?.site_id).toBe(site.site_id);
    });

    it('revoke-key --key stops that key, --site every key of the site', async () => {
      const { site, api_key: first } = await store.sites.create({ name: 'CLI2', domain: 'cli2.example.com' });
      const second = await store.sites.issueKey(site.site_id);
      expect(await printed('revoke-key', '--key', first)).toEqual({ revoked: 'key', site_id: site.site_id });
      expect(await store.sites.lookupKey(first)).toBeNull();
      expect((await store.sites.lookupKey(second))?.site_id).toBe(site.site_id);
      expect(await printed('revoke-key', '--site', String(site.site_id))).toEqual({
        revoked: 'site',
        site_id: site.site_id,
      });
      expect(await store.sites.lookupKey(second)).toBeNull();
    });

    it("create gives the site the default budget, or the one given, and says what its own domain's monitoring costs a month", async () => {
      const made = await printed('create', '--name', 'Priced', '--domain', 'priced.example.com');
      const month = monitoringMonthPrice('site');
      expect(made).toMatchObject({
        budget: { daily_usd: DEFAULT_BUDGETS.siteDailyUsd, monthly_usd: DEFAULT_BUDGETS.siteMonthlyUsd },
        monitoring: {
          domain: 'priced.example.com',
          month_usd: month.usd,
          at_most_month_usd: month.at_most_usd,
          paused: false,
        },
      });
      // The budget is the site's, as GET /v1/budget reads it.
      expect(await store.budgets.limits(made.site_id as number)).toMatchObject({
        daily_usd: DEFAULT_BUDGETS.siteDailyUsd,
        monthly_usd: DEFAULT_BUDGETS.siteMonthlyUsd,
      });

      // Its creator chooses another, or none; bad limits are refused before the site is made.
      const own = await printed(
        'create',
        '--name',
        'Own',
        '--domain',
        'own.example.com',
        '--daily',
        '2',
        '--monthly',
        'none',
      );
      expect(own.budget).toEqual({ daily_usd: 2, monthly_usd: null });
      expect(await store.budgets.limits(own.site_id as number)).toMatchObject({ daily_usd: 2, monthly_usd: null });
      const last = await store.sites.lastId();
      expect(await cli('create', '--name', 'Bad', '--domain', 'bad.example.com', '--daily', '-1')).toMatchObject({
        code: 2,
      });
      expect(await store.sites.lastId()).toBe(last);
      // A site whose domain is no domain (made through the store) has no own monitoring to price.
      expect((await createSite(store, { name: 'Intranet', domain: 'intranet' }, {}, new Date())).monitoring).toBeNull();
    });

    it('budget sets the limits and the approval threshold, none clears one, and prints the budget', async () => {
      const { site } = await store.sites.create({ name: 'CLI3', domain: 'cli3.example.com' });
      const id = String(site.site_id);
      expect(await printed('budget', '--site', id, '--daily', '5', '--confirm-above', '0.25')).toMatchObject({
        daily: { limit_usd: 5 },
        monthly: { limit_usd: null },
        confirm_above_usd: 0.25,
      });
      expect(await printed('budget', '--site', id, '--confirm-above', 'none')).toMatchObject({
        daily: { limit_usd: 5 },
        confirm_above_usd: null,
      });
      expect(await cli('budget', '--site', id, '--confirm-above', '-1')).toMatchObject({ code: 2 });
      const hook = 'https://hooks.example.com/budget';
      expect(await printed('budget', '--site', id, '--webhook', hook)).toMatchObject({ warning_webhook_url: hook });
      expect(await printed('budget', '--site', id, '--webhook', 'none')).toMatchObject({ warning_webhook_url: null });
      expect(await cli('budget', '--site', id, '--webhook', 'http://hooks.example.com/budget')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('https'),
      });
    });

    it('says what is wrong: an unknown site or key exits 1, bad options 2', async () => {
      expect(await cli('rotate-key', '--site', '999999')).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('no site 999999'),
      });
      expect(await cli('revoke-key', '--key', 'cmk_unknown')).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('no such key'),
      });
      expect(await cli('rotate-key', '--site', 'x')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--site'),
      });
      expect(await cli('rotate-key', '--site', '1', '--grace-seconds', '-5')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--grace-seconds'),
      });
      expect(await cli('revoke-key', '--site', '1', '--key', 'cmk_x')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('one of them'),
      });
    });

    it('is the CLI: npm run sites prints to stdout and stderr and exits with the code', async () => {
      const tsx = (...args: string[]) =>
        run(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'packages/local/src/sites-cli.ts'), ...args], {
          env: { ...process.env, DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: 'sites-test' },
          cwd: ROOT,
        });
      const { site } = await store.sites.create({ name: 'CLI4', domain: 'cli4.example.com' });
      const rotated = JSON.parse((await tsx('rotate-key', '--site', String(site.site_id))).stdout);
      expect(rotated).toEqual({ site_id: site.site_id, api_key: expect.stringMatching(/^cmk_/) });
      // The command's code and its lines on stderr, whichever they are (each code above, in this process).
      await expect(tsx('rotate-key', '--site', 'x')).rejects.toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining('--site'),
      });
    });
  });
});
