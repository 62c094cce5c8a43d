import { runSites } from '@cm/local';
import { replayCloudFront } from '../helpers/cloudfront-replay';
import { article, getAtHost, publishArticle, question, startTestStack, type TestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

/* A site served at its own domain (docs/api.md#the-sites-own-domain), chosen by the Host of the request. */

let t: TestStack;
let shop: { siteId: number; key: string };
beforeAll(async () => {
  t = await startTestStack();
  shop = await t.newSite('Shop', { domain: 'shop.example.com', locale: 'US/en' });
  // Before the key's first use: the key's check keeps what it read of the site for a few seconds.
  expect(await t.store.sites.serveDomain(shop.siteId, 'shop.example.com')).toBe('served');
  const client = apiClient(t, shop.key);
  await client.route('POST /articles', { body: article('boots', { category: 'Gear' }) });
  await client.route('POST /questions', { body: question('fit', { topics: ['Sizing'] }) });
});
afterAll(async () => {
  await t.stop();
});

const SHOP = 'https://shop.example.com';

describe("a site's own domain", () => {
  it('serves the home, pages and listings at the domain, every URL in them the domain’s', async () => {
    const home = await getAtHost(t, 'shop.example.com', '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain(`<link rel="canonical" href="${SHOP}/">`);
    expect(home.text).toContain(`<a href="${SHOP}/articles/boots">Title of boots</a>`);
    const page = await getAtHost(t, 'Shop.Example.COM:443', '/articles/boots');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<link rel="canonical" href="${SHOP}/articles/boots">`);
    expect(page.text).toContain(`<a href="${SHOP}/categories/gear">Gear</a>`);
    expect(page.text).not.toContain(t.url);
    expect((await getAtHost(t, 'shop.example.com', '/categories/gear')).status).toBe(200);
    expect((await getAtHost(t, 'shop.example.com', '/topics/sizing')).text).toContain(`${SHOP}/questions/fit`);
    expect((await getAtHost(t, 'shop.example.com', '/questions')).status).toBe(200);
  });

  it('keeps the /sites/{id} URLs working, naming the domain’s URL as canonical; the publish reply and reads name it too', async () => {
    const page = await t.call('GET', `/sites/${shop.siteId}/articles/boots`, undefined, { key: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<link rel="canonical" href="${SHOP}/articles/boots">`);
    const client = apiClient(t, shop.key);
    const published = await client.route('POST /articles', { body: article('laces') });
    expect(published.body.url).toBe(`${SHOP}/articles/laces`);
    const listed = await client.route('GET /articles');
    expect(listed.body.items.map((item) => item.url)).toContain(`${SHOP}/articles/boots`);
  });

  it("declares the site's language and links an icon that is served, at the domain and at the deployment's address", async () => {
    const iconOf = (html: string) => given(/<link rel="icon" href="([^"]+)"/.exec(html)?.[1], 'the icon link');
    for (const path of ['/', '/articles/boots', '/questions/fit', '/categories/gear']) {
      const page = await getAtHost(t, 'shop.example.com', path);
      expect([path, page.text.match(/<html lang="[^"]*">/)?.[0]]).toEqual([path, '<html lang="en-US">']);
      expect(page.text).toContain('<meta property="og:locale" content="en_US">');
      expect([path, iconOf(page.text)]).toEqual([path, `${SHOP}/favicon.ico`]);
    }
    const home = (await getAtHost(t, 'shop.example.com', '/')).text;
    expect(home).toContain(`"@type":"WebSite","name":"Shop","url":"${SHOP}/","inLanguage":"en-US"`);
    const icon = await getAtHost(t, 'shop.example.com', '/favicon.ico');
    expect([icon.status, icon.headers['content-type']]).toEqual([200, 'image/svg+xml']);
    // A site without a domain of its own: its pages' icon is the deployment's, at its root.
    await t.call('POST', '/articles', article('no-domain'));
    for (const path of ['/', '/articles/no-domain']) {
      const page = await t.call('GET', `/sites/${t.siteId}${path}`, undefined, { key: null });
      expect(iconOf(page.text)).toBe(`${t.url}/favicon.ico`);
    }
    const served = await t.call('GET', '/favicon.ico', undefined, { key: null });
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  });

  it('answers 404 at a domain no site serves, and never shows another site’s pages or the API there', async () => {
    for (const [host, path] of [
      ['unknown.example.com', '/'],
      ['unknown.example.com', '/articles/boots'],
      ['shop.example.com', '/articles'],
      ['shop.example.com', '/v1/usage'],
      ['shop.example.com', `/sites/${t.siteId}/`],
      ['shop.example.com', '/no/such/page'],
    ] as const) {
      const reply = await getAtHost(t, host, path);
      expect([host, path, reply.status]).toEqual([host, path, 404]);
      expect(reply.text).not.toContain('Title of boots');
    }
    // The demo site's page is not the shop's.
    await publishArticle(t, 'demo-only');
    expect((await getAtHost(t, 'shop.example.com', '/articles/demo-only')).status).toBe(404);
  });

  it('has its own robots.txt and icon, and its sitemap and feed name the domain', async () => {
    const robots = await getAtHost(t, 'shop.example.com', '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.text).toBe(`User-agent: *\nAllow: /\nSitemap: ${SHOP}/sitemap.xml\n`);
    expect((await getAtHost(t, 'shop.example.com', '/favicon.ico')).headers['content-type']).toBe('image/svg+xml');
    expect((await getAtHost(t, 'unknown.example.com', '/robots.txt')).status).toBe(404);
    const index = await getAtHost(t, 'shop.example.com', '/sitemap.xml');
    expect(index.text).toContain(`<loc>${SHOP}/sitemaps/listings.xml</loc>`);
    const month = new Date().toISOString().slice(0, 7);
    expect((await getAtHost(t, 'shop.example.com', `/sitemaps/${month}.xml`)).text).toContain(
      `<loc>${SHOP}/articles/boots</loc>`,
    );
    expect((await getAtHost(t, 'shop.example.com', '/feed.xml')).text).toContain(`href="${SHOP}/articles/boots"`);
  });

  it("answers a sitemap that is not there with the site's 404 page and the pages' headers, as any unknown path", async () => {
    for (const path of ['/sitemaps/nope.xml', '/sitemaps/2001-01.xml', '/no/such/page']) {
      const reply = await getAtHost(t, 'shop.example.com', path);
      expect([path, reply.status, reply.headers['content-type']]).toEqual([path, 404, 'text/html; charset=utf-8']);
      expect(reply.headers['content-security-policy']).toContain("default-src 'none'");
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.text).toContain(`<a class="site-name" href="${SHOP}/">Shop</a>`);
      expect(reply.text).toContain('<meta name="robots" content="noindex">');
    }
    // A host no site serves: the bare 404 page, naming no site.
    const unknown = await getAtHost(t, 'unknown.example.com', '/sitemaps/listings.xml');
    expect([unknown.status, unknown.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    expect(unknown.text).not.toContain('<header');
  });

  it('belongs to one site at most; letting it go serves the pages at the deployment’s address again (npm run sites)', async () => {
    const other = await t.newSite('Other shop', { domain: 'other-shop.example.com' });
    expect(await t.store.sites.serveDomain(other.siteId, 'shop.example.com')).toBe('taken');
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const env = { DYNAMODB_ENDPOINT: t.stack.dynamo.endpoint, TABLE_NAME: t.stack.tableName };
    expect(await runSites(['serve-domain', '--site', String(other.siteId)], out, env)).toBe(0);
    expect(JSON.parse(given(lines.pop(), 'an output line'))).toEqual({
      site_id: other.siteId,
      served_domain: 'other-shop.example.com',
    });
    expect(
      await runSites(['serve-domain', '--site', String(other.siteId), '--domain', 'shop.example.com'], out, env),
    ).toBe(1);
    expect(lines.pop()).toBe('sites: shop.example.com is served for another site already');
    expect(await runSites(['serve-domain', '--site', String(other.siteId), '--stop'], out, env)).toBe(0);
    expect(await t.store.sites.siteOfDomain('other-shop.example.com')).toBeNull();
    expect((await t.store.sites.get(other.siteId))?.served_domain).toBeUndefined();
  });

  it("deployed, is the site's CloudFront tenant: the DNS step first, the site's URLs once the certificate is issued", async () => {
    const site = await t.newSite('Tenant shop', { domain: 'shop.example.net' });
    const TENANT = '/2020-05-31/distribution-tenant';
    const ID = 'dt_2zhRB0vBe0B72LZCvy1mgzI1AB';
    const group = { status: 200, fixture: 'connection-group.xml' };
    const replay = await replayCloudFront(
      {
        [`GET ${TENANT}/site-${site.siteId}`]: [
          { status: 404, fixture: 'error-not-found.xml' },
          { status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' },
          { status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' },
        ],
        [`POST ${TENANT}`]: [{ status: 201, fixture: 'tenant-created.xml', etag: 'E2QWRUHAPOMQZL' }],
        [`GET /2020-05-31/managed-certificate/${ID}`]: [
          { status: 200, fixture: 'certificate-pending.xml' },
          { status: 200, fixture: 'certificate-issued.xml' },
        ],
        'GET /2020-05-31/connection-group/cg_2whCJoXMYCjHcxaLGrkllvyABC': [group, group],
        [`PUT ${TENANT}/${ID}`]: [{ status: 200, fixture: 'tenant-disabled.xml', etag: 'E3UN6WX5RRO2AG' }],
        [`DELETE ${TENANT}/${ID}`]: [{ status: 204 }],
      },
      'shop.example.net',
    );
    const moving = await t.newSite('Moving shop', { domain: 'shop.example.net' });
    const migration = await replayCloudFront(
      {
        [`GET ${TENANT}/site-${moving.siteId}`]: [{ status: 404, fixture: 'error-not-found.xml' }],
        [`POST ${TENANT}`]: [{ status: 201, fixture: 'tenant-own-certificate.xml', etag: 'E2QWRUHAPOMQZL' }],
        'POST /2020-05-31/domain-association': [{ status: 200, fixture: 'domain-association.xml' }],
        'GET /2020-05-31/connection-group/cg_2whCJoXMYCjHcxaLGrkllvyABC': [group],
      },
      'shop.example.net',
    );
    try {
      const lines: string[] = [];
      const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
      const env = {
        DYNAMODB_ENDPOINT: t.stack.dynamo.endpoint,
        TABLE_NAME: t.stack.tableName,
        SITE_DOMAINS_DISTRIBUTION_ID: 'E1XNX8R2GOAABC',
        SITE_DOMAINS_CONNECTION_GROUP_ID: 'cg_2whCJoXMYCjHcxaLGrkllvyABC',
      };
      const serve = ['serve-domain', '--site', String(site.siteId), '--domain', 'shop.example.com'];
      // shop.example.com is the first site's: refused before any CloudFront call.
      expect(await runSites(serve, out, env, () => replay.client)).toBe(1);
      expect(lines.pop()).toBe('sites: shop.example.com is served for another site already');
      expect(replay.asked).toEqual([]);
      serve[4] = 'shop.example.net';
      expect(await runSites(serve, out, env, () => replay.client)).toBe(0);
      const pending = JSON.parse(given(lines.pop(), 'an output line'));
      expect(pending).toMatchObject({
        site_id: site.siteId,
        served_domain: null,
        tenant: {
          dns: { type: 'CNAME', name: 'shop.example.net', value: 'd111111abcdef8.cloudfront.net' },
          certificate: { status: 'pending-validation' },
        },
      });
      expect(pending.next).toContain('d111111abcdef8.cloudfront.net');
      expect((await t.store.sites.get(site.siteId))?.served_domain).toBeUndefined();
      expect(await runSites(serve, out, env, () => replay.client)).toBe(0);
      expect(JSON.parse(given(lines.pop(), 'an output line'))).toMatchObject({
        served_domain: 'shop.example.net',
        tenant: { status: 'active' },
      });
      expect((await t.store.sites.siteOfDomain('shop.example.net'))?.site_id).toBe(site.siteId);
      expect(
        await runSites(['serve-domain', '--site', String(site.siteId), '--stop'], out, env, () => replay.client),
      ).toBe(0);
      expect(JSON.parse(given(lines.pop(), 'an output line'))).toEqual({
        site_id: site.siteId,
        served_domain: null,
        tenant_removed: 'deleted',
      });
      expect(await t.store.sites.siteOfDomain('shop.example.net')).toBeNull();
      // A domain of the old siteDomains moves to its tenant with its issued certificate: the site's URLs stay on it.
      expect(await t.store.sites.serveDomain(moving.siteId, 'shop.example.net')).toBe('served');
      const move = ['serve-domain', '--site', String(moving.siteId), '--certificate-arn'];
      expect(await runSites([...move, 'arn:aws:acm:eu-west-1:123456789012:certificate/x'], out, env)).toBe(2);
      expect(lines).toContain('--certificate-arn: must be an ACM certificate ARN in us-east-1');
      const arn = 'arn:aws:acm:us-east-1:123456789012:certificate/1234abcd-12ab-34cd-56ef-1234567890ab';
      expect(await runSites([...move, arn], out, env, () => migration.client)).toBe(0);
      expect(JSON.parse(given(lines.pop(), 'an output line'))).toMatchObject({
        served_domain: 'shop.example.net',
        tenant: { certificate: { status: 'issued', arn }, moved: true },
        next: expect.stringContaining('leave it out of -c siteDomains'),
      });
      expect(migration.asked.map((a) => a.call)).toContain('POST /2020-05-31/domain-association');
      const local = { DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT, TABLE_NAME: env.TABLE_NAME };
      expect(await runSites([...move, arn], out, local)).toBe(1);
      expect(lines.pop()).toMatch(/--certificate-arn is for a deployment's tenants/);
      // Deployed without the stack's outputs, nothing is registered that no tenant serves.
      expect(await runSites(serve, out, { ...env, SITE_DOMAINS_CONNECTION_GROUP_ID: '' }, () => replay.client)).toBe(1);
      expect(lines.pop()).toMatch(/SITE_DOMAINS_DISTRIBUTION_ID and SITE_DOMAINS_CONNECTION_GROUP_ID/);
    } finally {
      await replay.close();
      await migration.close();
    }
  });
});
