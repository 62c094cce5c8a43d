import { Readable } from 'node:stream';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DOMParser } from 'linkedom';
import { parseSitemap, parseSitemapIndex } from 'sitemap';
import { article, getAtHost, question, requestPathCount, siteClient, useTestStack } from '../helpers/local';
import { SERVICE_LIMITS } from '@cm/contract';
import { pageId as pageIdOf } from '@cm/core';
import { given } from '../helpers/client';
import { fakeClock } from '../helpers/clock';
import { pageKey } from '../../packages/store/src/keys';

/* A site's sitemaps and feed (docs/api.md#discovery-files). */

const t = useTestStack();

const get = (path: string) => t.call('GET', path, undefined, { key: null });
const month = () => new Date().toISOString().slice(0, 7);
/** A sitemap's entries, as the `sitemap` package's own parser reads them (it refuses what the protocol does not allow). */
const entriesOf = async (xml: string) =>
  (await parseSitemap(Readable.from([xml]))).map((entry) => ({ url: entry.url, lastmod: entry.lastmod }));

describe('sitemaps', () => {
  it("lists the listing pages' sitemap and each month with live pages, as sitemaps.org's index", async () => {
    const site = await siteClient(t, 'Mapped site');
    await site.client.route('POST /articles', { body: article('mapped', { category: 'Gear' }) });
    await site.client.route('POST /questions', { body: question('asked', { topics: ['Sizing'] }) });
    const index = await get(`/sites/${site.siteId}/sitemap.xml`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(index.headers.get('etag')).toMatch(/^"/);
    const root = `${t.url}/sites/${site.siteId}`;
    expect((await parseSitemapIndex(Readable.from([index.text]))).map((entry) => entry.url)).toEqual([
      `${root}/sitemaps/listings.xml`,
      `${root}/sitemaps/${month()}.xml`,
    ]);
    const listings = await get(`/sites/${site.siteId}/sitemaps/listings.xml`);
    expect((await entriesOf(listings.text)).map((entry) => entry.url).sort()).toEqual(
      [`${root}/`, `${root}/questions`, `${root}/categories/gear`, `${root}/topics/sizing`].sort(),
    );
  });

  it('lists only the category and topic pages that answer 200 with a page search engines may index, each with its lastmod', async () => {
    const site = await siteClient(t, 'Pruned site');
    const root = `${t.url}/sites/${site.siteId}`;
    const kept = await site.client.route('POST /articles', { body: article('kept', { category: 'Gear' }) });
    const gone = await site.client.route('POST /articles', { body: article('gone', { category: 'Gone' }) });
    await site.client.route('POST /articles', { body: article('hidden', { category: 'Hidden', noindex: true }) });
    const asked = await site.client.route('POST /questions', { body: question('asked', { topics: ['Left'] }) });
    await site.client.route('POST /api/content/notify', {
      body: { id: gone.body.id, type: 'article', action: 'unpublished' },
    });
    await site.client.route('POST /api/content/notify', {
      body: { id: asked.body.id, type: 'question', action: 'deleted' },
    });
    await t.stack.drain();
    const entries = await entriesOf((await get(`/sites/${site.siteId}/sitemaps/listings.xml`)).text);
    const status = async (path: string) => (await get(`/sites/${site.siteId}${path}`)).status;
    // The listing routes agree: a section with no live page answers 404; one with only noindex pages is left out.
    expect(await Promise.all(['/categories/gone', '/topics/left', '/categories/hidden'].map(status))).toEqual([
      404, 404, 200,
    ]);
    const visible = new Map(
      (await entriesOf((await get(`/sites/${site.siteId}/sitemaps/${month()}.xml`)).text)).map((e) => [
        e.url,
        e.lastmod,
      ]),
    );
    const keptLastmod = visible.get(`${root}/articles/kept`);
    expect(keptLastmod).toEqual(expect.any(String));
    expect(kept.status).toBe(201);
    expect(entries).toEqual([
      // The home shows the noindex article's card too, published last: its lastmod is that card's.
      { url: `${root}/`, lastmod: expect.any(String) },
      { url: `${root}/questions`, lastmod: undefined },
      { url: `${root}/categories/gear`, lastmod: keptLastmod },
    ]);
    expect(given(entries[0]?.lastmod, "the home's lastmod") > given(keptLastmod, 'a lastmod')).toBe(true);
  });

  it("lists a month's live pages that search engines may index, each with when what readers see last changed", async () => {
    const site = await siteClient(t, 'Indexable site');
    const root = `${t.url}/sites/${site.siteId}`;
    await site.client.route('POST /articles', { body: article('plain') });
    await site.client.route('POST /articles', { body: article('hidden', { noindex: true }) });
    await site.client.route('POST /articles', {
      body: article('elsewhere', { canonical_url: 'https://other.example.com/x' }),
    });
    await site.client.route('POST /articles', { body: article('self', { canonical_url: `${root}/articles/self` }) });
    await site.client.route('POST /articles', { body: article('draft', { status: 'draft' }) });
    const target = (await site.client.route('POST /articles', { body: article('target') })).body.id;
    await site.client.route('POST /articles', { body: article('linker', { related_article_ids: [target] }) });
    const read = async () =>
      new Map(
        (await entriesOf((await get(`/sites/${site.siteId}/sitemaps/${month()}.xml`)).text)).map((e) => [
          e.url,
          e.lastmod,
        ]),
      );
    const first = await read();
    expect([...first.keys()].sort()).toEqual(
      ['plain', 'self', 'target', 'linker'].map((slug) => `${root}/articles/${slug}`).sort(),
    );

    // A republish moves its lastmod; the others stay.
    await new Promise((r) => setTimeout(r, 5));
    await site.client.route('POST /articles', { body: article('plain', { title: 'Plain, edited' }) });
    const lastmod = (sitemap: Map<string, string | undefined>, slug: string) =>
      given(sitemap.get(`${root}/articles/${slug}`), `the lastmod of ${slug}`);
    const second = await read();
    expect(lastmod(second, 'plain') > lastmod(first, 'plain')).toBe(true);
    expect(second.get(`${root}/articles/self`)).toBe(first.get(`${root}/articles/self`));

    // A take-down leaves the sitemap; the page linking to it changes for readers (relink), so its lastmod moves.
    await site.client.route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'unpublished' },
    });
    await t.stack.drain();
    const third = await read();
    expect(third.has(`${root}/articles/target`)).toBe(false);
    expect(lastmod(third, 'linker') > lastmod(second, 'linker')).toBe(true);
  });

  it("moves the lastmod, the page's Last-Modified and the feed's updated only when readers see a change", async () => {
    const site = await siteClient(t, 'Steady site');
    const body = article('steady', { updated_at: '2026-01-02T03:04:05Z' });
    const seen = async () => {
      const [sitemap, feed, page] = await Promise.all([
        get(`/sites/${site.siteId}/sitemaps/${month()}.xml`),
        get(`/sites/${site.siteId}/feed.xml`),
        get(`/sites/${site.siteId}/articles/steady`),
      ]);
      return {
        lastmod: (await entriesOf(sitemap.text))[0]?.lastmod,
        updated: /<updated>([^<]+)<\/updated>/.exec(feed.text)?.[1],
        lastModified: page.headers.get('last-modified'),
        etag: page.headers.get('etag'),
      };
    };
    fakeClock(Date.now());
    try {
      await site.client.route('POST /articles', { body });
      const first = await seen();
      jest.setSystemTime(Date.now() + 5000);
      // The very same document again (an agent's retry): nothing readers see changed.
      expect((await site.client.route('POST /articles', { body })).status).toBe(200);
      expect(await seen()).toEqual(first);
      jest.setSystemTime(Date.now() + 5000);
      await site.client.route('POST /articles', { body: { ...body, title: 'Steady, edited' } });
      const edited = await seen();
      for (const key of ['lastmod', 'updated', 'lastModified', 'etag'] as const)
        expect([key, edited[key]]).not.toEqual([key, first[key]]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('dates each sitemap in the index by the latest change readers see of what it lists', async () => {
    const site = await siteClient(t, 'Dated site');
    const root = `${t.url}/sites/${site.siteId}`;
    const index = async () =>
      new Map(
        (await parseSitemapIndex(Readable.from([(await get(`/sites/${site.siteId}/sitemap.xml`)).text]))).map(
          (entry) => [entry.url, entry.lastmod],
        ),
      );
    const pages = async () =>
      (await entriesOf((await get(`/sites/${site.siteId}/sitemaps/${month()}.xml`)).text)).map((e) => e.lastmod ?? '');
    await site.client.route('POST /articles', { body: article('dated-a') });
    await site.client.route('POST /questions', { body: question('dated-q', { topics: ['Dates'] }) });
    const first = await index();
    const newest = (await pages()).sort().at(-1);
    expect(first).toEqual(
      new Map([
        [`${root}/sitemaps/listings.xml`, newest],
        [`${root}/sitemaps/${month()}.xml`, newest],
      ]),
    );
    // A change readers see moves the month's lastmod and the listings'.
    await new Promise((r) => setTimeout(r, 5));
    await site.client.route('POST /articles', { body: article('dated-a', { title: 'Dated, edited' }) });
    const second = await index();
    const moved = (await pages()).sort().at(-1);
    expect(moved && newest && moved > newest).toBe(true);
    expect([...second.values()]).toEqual([moved, moved]);
  });

  it('names the month of a page from before months were kept without a lastmod, until its next publish places it', async () => {
    const site = await siteClient(t, 'Unplaced site');
    const id = (await site.client.route('POST /articles', { body: article('unplaced') })).body.id;
    // What a page item from before months were kept holds: neither attribute.
    await t.db.send(
      new UpdateCommand({
        TableName: t.stack.tableName,
        Key: pageKey(site.siteId, 'article', id),
        UpdateExpression: 'REMOVE month_pk, gsi6pk',
      }),
    );
    /** The month's entry in the index: named, and its lastmod. */
    const monthEntry = async () => {
      const index = await parseSitemapIndex(Readable.from([(await get(`/sites/${site.siteId}/sitemap.xml`)).text]));
      const entry = index.find((e) => e.url.endsWith(`/sitemaps/${month()}.xml`));
      return { named: entry !== undefined, lastmod: entry?.lastmod };
    };
    expect(await monthEntry()).toEqual({ named: true, lastmod: undefined });
    // Taken down and back, it is still in no month's index: a notify cannot tell which month it is.
    for (const status of ['draft', 'published'] as const)
      await site.client.route('POST /api/content/notify', { body: { id, type: 'article', status } });
    expect(await monthEntry()).toEqual({ named: true, lastmod: undefined });
    await site.client.route('POST /articles', { body: article('unplaced', { title: 'Placed' }) });
    expect(await monthEntry()).toEqual({ named: true, lastmod: expect.any(String) });
  });

  it('reads one item per month and type for the index, and answers 404 to a sitemap that is not there', async () => {
    const site = await siteClient(t, 'Probed site');
    await site.client.route('POST /articles', { body: article('probed') });
    await get(`/sites/${site.siteId}/sitemap.xml`);
    const { requests } = await requestPathCount(t, () => get(`/sites/${site.siteId}/sitemap.xml`));
    // The site began this month: one probe finds an article.
    expect(requests).toBe(1);
    for (const name of ['2026-13.xml', 'x.xml', 'listings', '../sitemap.xml'])
      expect((await get(`/sites/${site.siteId}/sitemaps/${encodeURIComponent(name)}`)).status).toBe(404);
    expect((await get('/sites/999999/sitemap.xml')).status).toBe(404);
  });

  it('answers 404, never 500, to a month with no page for a sitemap: none ever, or all taken down after crawlers had its URL', async () => {
    const site = await siteClient(t, 'Emptied site');
    const monthPath = `/sites/${site.siteId}/sitemaps/${month()}.xml`;
    // A month before the site began, and one still to come: a urlset holds at least one URL, so there is none.
    for (const name of ['2001-01', '9998-12'])
      expect((await get(`/sites/${site.siteId}/sitemaps/${name}.xml`)).status).toBe(404);
    const [articleId, questionId] = [
      (await site.client.route('POST /articles', { body: article('gone-article') })).body.id,
      (await site.client.route('POST /questions', { body: question('gone-question') })).body.id,
    ];
    const before = await get(monthPath);
    expect(before.status).toBe(200);
    expect(await entriesOf(before.text)).toHaveLength(2);
    await site.client.route('POST /api/content/notify', {
      body: { id: articleId, type: 'article', action: 'unpublished' },
    });
    await site.client.route('POST /api/content/notify', {
      body: { id: questionId, type: 'question', action: 'deleted' },
    });
    await t.stack.drain();
    const after = await get(monthPath);
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ code: 'not_found' });
    // The index no longer names it.
    const index = await get(`/sites/${site.siteId}/sitemap.xml`);
    expect((await parseSitemapIndex(Readable.from([index.text]))).map((entry) => entry.url)).toEqual([
      `${t.url}/sites/${site.siteId}/sitemaps/listings.xml`,
    ]);
  });
});

describe('the feed', () => {
  /** The feed as an XML document, its entries as Atom readers see them. */
  const feedOf = async (path: string) => {
    const feed = await get(path);
    expect(feed.status).toBe(200);
    const doc = new DOMParser().parseFromString(feed.text, 'text/xml');
    const entries = [...doc.querySelectorAll('entry')].map((entry) => ({
      id: entry.querySelector('id')?.textContent,
      link: entry.querySelector('link')?.getAttribute('href'),
      title: entry.querySelector('title')?.textContent,
      summary: entry.querySelector('summary')?.textContent ?? null,
      content: entry.querySelector('content')?.textContent ?? null,
    }));
    return { feed, doc, entries };
  };

  it('is an Atom feed of the latest live articles and questions, newest first, each with its body', async () => {
    const site = await siteClient(t, 'Feed & Co');
    const root = `${t.url}/sites/${site.siteId}`;
    await site.client.route('POST /articles', {
      body: article('first', { meta_description: 'The first <one>', cover_image: 'https://img.example/first.png' }),
    });
    await site.client.route('POST /articles', { body: article('unlisted', { status: 'draft' }) });
    const asked = (await site.client.route('POST /questions', { body: question('asked') })).body;
    await site.client.route('PUT /questions/{id}/summary', {
      params: { id: asked.id },
      body: { summary: 'Short & sure' },
    });
    const first = pageIdOf(site.siteId, 'article', 'first');
    const draft = pageIdOf(site.siteId, 'article', 'unlisted');
    const body = [
      { _type: 'paragraph', text: `See [the first](page:${first}) and [the draft](page:${draft}) <b>]]>]]>.` },
    ];
    await site.client.route('POST /articles', { body: article('second', { body }) });
    const { feed, doc, entries } = await feedOf(`/sites/${site.siteId}/feed.xml`);
    expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const root_ = doc.documentElement;
    expect(root_.tagName).toBe('feed');
    expect(root_.getAttribute('xmlns')).toBe('http://www.w3.org/2005/Atom');
    expect(doc.querySelector('feed > title')?.textContent).toBe('Feed & Co');
    expect(doc.querySelector('feed > updated')?.textContent).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(doc.querySelector('link[rel="self"]')?.getAttribute('href')).toBe(`${root}/feed.xml`);
    expect(doc.querySelector('link[rel="alternate"]')?.getAttribute('href')).toBe(`${root}/`);
    expect(entries.map(({ id, ...entry }) => entry)).toEqual([
      {
        link: `${root}/articles/second`,
        title: 'Title of second',
        summary: 'See the first and the draft &lt;b&gt;]]&gt;]]&gt;.',
        // The rendered body: a link to a live page at its URL, to a draft none, every text escaped (so no
        // `]]>` ends the package's CDATA early).
        content: `<p>See <a href="${root}/articles/first">the first</a> and the draft &lt;b&gt;]]&gt;]]&gt;.</p>`,
      },
      {
        link: `${root}/questions/asked`,
        title: 'What is asked?',
        summary: 'Answer about asked',
        // The site's short answer, then the answer.
        content: '<p>Short &amp; sure</p>\n<p>Answer about asked</p>',
      },
      {
        link: `${root}/articles/first`,
        // Atom's type="html": the text as escaped HTML, which a reader shows as the text it was.
        title: 'Title of first',
        summary: 'The first &lt;one&gt;',
        content: '<img src="https://img.example/first.png" alt="">\n<p>Body of first</p>',
      },
    ]);
    // Every page names it, for feed readers to find.
    expect((await get(`/sites/${site.siteId}/`)).text).toContain(
      `<link rel="alternate" type="application/atom+xml" title="Feed &amp; Co" href="${root}/feed.xml">`,
    );
  });

  it('carries bodies up to feedContentBytes, newest first, and reads no page past them', async () => {
    const site = await siteClient(t, 'Long reads');
    for (let i = 0; i < 8; i++) await site.client.route('POST /articles', { body: article(`short-${i}`) });
    // Three of 400 KB: the third passes the bound.
    const long = Array.from({ length: 400 }, () => ({ _type: 'paragraph', text: 'x'.repeat(1_000) }));
    for (const slug of ['long-1', 'long-2', 'long-3'])
      await site.client.route('POST /articles', { body: article(slug, { body: long }) });
    await get(`/sites/${site.siteId}/feed.xml`); // the site's item, read once and kept
    const read = await requestPathCount(t, () => feedOf(`/sites/${site.siteId}/feed.xml`));
    const { entries } = read.result;
    expect(entries.map((entry) => [entry.link?.split('/').pop(), (entry.content?.length ?? 0) > 400_000])).toEqual([
      ['long-3', true],
      ['long-2', true],
      ['long-1', false],
      ...Array.from({ length: 8 }, (_v, i) => [`short-${7 - i}`, false]),
    ]);
    expect(entries.every((entry) => entry.summary)).toBe(true);
    // One Query per page type, then ten pages: their bodies pass the bound, so the eleventh is not read.
    expect(read.requests).toBe(2 + 10);
    expect(SERVICE_LIMITS.feedContentBytes).toBeLessThan(3 * 400_000);
  });

  it('lists a page taken down after the index of live pages was read without its body', async () => {
    const site = await siteClient(t, 'Lagging index');
    await site.client.route('POST /articles', { body: article('going') });
    // The page item is a draft while the index (eventually consistent) still lists it live.
    await t.db.send(
      new UpdateCommand({
        TableName: t.stack.tableName,
        Key: pageKey(site.siteId, 'article', pageIdOf(site.siteId, 'article', 'going')),
        UpdateExpression: 'SET #status = :draft',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':draft': 'draft' },
      }),
    );
    const { entries } = await feedOf(`/sites/${site.siteId}/feed.xml`);
    expect(entries.map((entry) => [entry.title, entry.summary, entry.content])).toEqual([
      ['Title of going', 'Body of going', null],
    ]);
  });

  it('keeps its ids when the site starts serving its own domain (RFC 4287 §4.2.6), its links moving', async () => {
    const site = await siteClient(t, 'Moving site', { domain: 'moving.example.com' });
    await site.client.route('POST /articles', { body: article('kept') });
    const created = given(await t.store.sites.get(site.siteId), 'the site').created_at.slice(0, 10);
    const before = await feedOf(`/sites/${site.siteId}/feed.xml`);
    expect(await t.store.sites.serveDomain(site.siteId, 'moving.example.com')).toBe('served');
    const at = await getAtHost(t, 'moving.example.com', '/feed.xml');
    const after = new DOMParser().parseFromString(at.text, 'text/xml');
    const feedId = `tag:moving.example.com,${created}:site-${site.siteId}`;
    expect(before.doc.querySelector('feed > id')?.textContent).toBe(feedId);
    expect(after.querySelector('feed > id')?.textContent).toBe(feedId);
    const entryId = `${feedId}/${pageIdOf(site.siteId, 'article', 'kept')}`;
    expect(before.entries.map((entry) => [entry.id, entry.link])).toEqual([
      [entryId, `${t.url}/sites/${site.siteId}/articles/kept`],
    ]);
    expect(after.querySelector('entry > id')?.textContent).toBe(entryId);
    expect(after.querySelector('entry > link')?.getAttribute('href')).toBe('https://moving.example.com/articles/kept');
  });

  it("is in the site's language, and a site without pages dates it from when the site began", async () => {
    const site = await siteClient(t, 'Quiet site', { locale: 'DE/de' });
    const { doc, entries } = await feedOf(`/sites/${site.siteId}/feed.xml`);
    expect(doc.documentElement.getAttribute('xml:lang')).toBe('de-DE');
    expect(entries).toEqual([]);
    const stored = given(await t.store.sites.get(site.siteId), 'the site');
    expect(doc.querySelector('feed > updated')?.textContent).toBe(new Date(stored.created_at).toISOString());
    // A site of the world (WW) names its language only.
    const world = await siteClient(t, 'World site');
    expect((await feedOf(`/sites/${world.siteId}/feed.xml`)).doc.documentElement.getAttribute('xml:lang')).toBe('en');
  });
});
