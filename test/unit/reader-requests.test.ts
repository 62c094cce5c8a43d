import { ApiError } from '@cm/contract';
import { feedFile, requestedPage, robotsFile, sitemapFile, sitemapIndexFile } from '@cm/publishing';
import type { Store } from '@cm/store';

/*
 * What a reader's request names (issue 51: the visitor and site-files handlers' logic, now in
 * publishing): a path or query that names no page or file is a 404, answered before the store is read.
 */

const BASE = 'https://pages.example.test';
/** A store that fails the test if anything reads it. */
const untouched = new Proxy({} as Store, {
  get: (_target, name) => {
    throw new Error(`the store was read (${String(name)})`);
  },
});

/** A store of no sites that records which it was asked for, and fails the test if anything else is read. */
function sitesOnly() {
  const asked: unknown[] = [];
  const sites = {
    get: async (siteId: number) => (asked.push(siteId), null),
    siteOfDomain: async (host: string) => (asked.push(host), null),
  };
  const store = new Proxy({} as Store, {
    get: (_target, name) => {
      if (name === 'sites') return sites;
      throw new Error(`the store was read (${String(name)})`);
    },
  });
  return { store, asked };
}

describe('requestedPage', () => {
  it.each([
    ['article', { site_id: 'one', slug: 'boiling-water' }, {}],
    ['question', {}, {}],
    ['home', { site_id: '0' }, {}],
    ['questions', { host: 'Not A Host' }, {}],
  ] as const)('answers the bare 404 page for a %s route at %j ? %j, reading nothing', async (route, path, query) => {
    const page = await requestedPage(untouched, BASE, route, { path, query });
    expect(page.status).toBe(404);
    expect(page).toMatchObject({ error: expect.objectContaining({ status: 404 }) });
  });

  // The site the path names is read (kept a minute) for its 404 page's header; nothing else is.
  it.each([
    ['question', { site_id: '71' }, {}, 71],
    ['home', { site_id: '72' }, { before: '' }, 72],
    ['category', { site_id: '73' }, {}, 73],
    ['topic', { site_id: '74', section: '' }, {}, 74],
    ['no-page', { host: 'example.com' }, {}, 'example.com'],
  ] as const)(
    'answers the 404 page for a %s route at %j ? %j, reading only its site',
    async (route, path, query, site) => {
      const { store, asked } = sitesOnly();
      const page = await requestedPage(store, BASE, route, { path, query });
      expect(page.status).toBe(404);
      expect(asked).toEqual([site]);
    },
  );
});

describe("a site's files", () => {
  it.each([
    ['the sitemap index', sitemapIndexFile, { site_id: 'x' }],
    ['a sitemap of no month', sitemapFile, { site_id: '1', sitemap: 'pages-2026-13.xml' }],
    ['a sitemap of no site', sitemapFile, { sitemap: 'listings.xml' }],
    ['the feed', feedFile, {}],
    ['robots.txt under /sites/', robotsFile, { site_id: '1' }],
  ] as const)('answers 404 not_found for %s when the path names none', async (_name, read, path) => {
    const refused = read(untouched, BASE, path);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe("a site's files at its own domain", () => {
  it('answers the 404 page, not the API error, for a sitemap that is not one, reading only the site', async () => {
    const { store, asked } = sitesOnly();
    const page = await sitemapFile(store, BASE, { host: 'files.example.org', sitemap: 'nope.xml' });
    expect(page).toMatchObject({ status: 404, error: expect.objectContaining({ code: 'not_found' }) });
    expect(asked).toEqual(['files.example.org']);
  });
});
