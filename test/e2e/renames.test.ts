import { article, getAtHost, question, siteClient, useTestStack, type SiteClient } from '../helpers/local';

/* Renaming a page (docs/api/publishing.md#renaming-a-page): its old URLs answer 301, one hop, until their redirects go. */

const t = useTestStack();

/** A visitor GET that does not follow a redirect: its status, Location and body. */
async function visit(path: string): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

const rename = (site: SiteClient, type: 'article' | 'question', id: string, slug: string) =>
  site.call('POST', `/${type}s/${id}/rename`, { slug });

describe('renaming a page', () => {
  it('keeps its id; the old URL answers 301 to the new one; the new slug upserts it and the old one is reserved', async () => {
    const site = await siteClient(t, 'Rename site');
    const root = `${t.url}/sites/${site.siteId}`;
    const { id } = (await site.call('POST', '/articles', article('old-name'))).body;

    const renamed = await rename(site, 'article', id, 'new-name');
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      id,
      type: 'article',
      slug: 'new-name',
      url: `${root}/articles/new-name`,
      redirects: [{ slug: 'old-name', url: `${root}/articles/old-name` }],
    });
    const old = await visit(`/sites/${site.siteId}/articles/old-name`);
    expect([old.status, old.location]).toEqual([301, `${root}/articles/new-name`]);
    expect(old.text).toContain(`<a href="${root}/articles/new-name">`);
    const now = await visit(`/sites/${site.siteId}/articles/new-name`);
    expect(now.status).toBe(200);
    expect(now.text).toContain(`<link rel="canonical" href="${root}/articles/new-name">`);
    expect((await site.call('GET', `/articles/${id}`)).body.slug).toBe('new-name');
    expect((await site.call('GET', '/articles?slug=new-name')).body.id).toBe(id);
    expect((await site.call('GET', '/articles?slug=old-name')).status).toBe(404);

    // The slug is the upsert key: a publish with the new slug replaces the same page.
    const republished = await site.call('POST', '/articles', article('new-name', { title: 'Edited' }));
    expect([republished.status, republished.body.id, republished.body.created]).toEqual([200, id, false]);
    expect((await visit(`/sites/${site.siteId}/articles/new-name`)).text).toContain('Edited');
    // The old slug is reserved: nothing is written.
    const refused = await site.call('POST', '/articles', article('old-name', { title: 'Squatter' }));
    expect([refused.status, refused.body.code, refused.body.page_id]).toEqual([409, 'already_exists', id]);
    expect((await visit(`/sites/${site.siteId}/articles/old-name`)).status).toBe(301);
    expect((await site.call('GET', '/articles')).body.items.map((p: { slug: string }) => p.slug)).toEqual(['new-name']);
  });

  it('sends every old URL to the current one in one hop, and may go back to an old slug', async () => {
    const site = await siteClient(t, 'Chain site');
    const root = `${t.url}/sites/${site.siteId}`;
    const { id } = (await site.call('POST', '/questions', question('a'))).body;
    await rename(site, 'question', id, 'b');
    expect((await rename(site, 'question', id, 'c')).body.redirects.map((r: { slug: string }) => r.slug)).toEqual([
      'a',
      'b',
    ]);
    for (const old of ['a', 'b']) {
      const moved = await visit(`/sites/${site.siteId}/questions/${old}`);
      expect([old, moved.status, moved.location]).toEqual([old, 301, `${root}/questions/c`]);
    }
    // Back to its first slug: that slug is its own again, and the others send readers there.
    const back = await rename(site, 'question', id, 'a');
    expect([back.body.slug, back.body.redirects.map((r: { slug: string }) => r.slug)]).toEqual(['a', ['b', 'c']]);
    expect((await visit(`/sites/${site.siteId}/questions/a`)).status).toBe(200);
    expect((await visit(`/sites/${site.siteId}/questions/c`)).location).toBe(`${root}/questions/a`);
    // Renaming to its current slug changes nothing.
    expect((await rename(site, 'question', id, 'a')).body).toEqual(back.body);
    expect((await site.call('GET', `/questions/${id}/redirects`)).body).toEqual(back.body);
  });

  it('frees an old slug once its redirect is removed: its URL answers 404, then a publish takes it as a new page', async () => {
    const site = await siteClient(t, 'Free site');
    const { id } = (await site.call('POST', '/articles', article('first'))).body;
    await rename(site, 'article', id, 'second');
    await rename(site, 'article', id, 'third');
    for (const slug of ['first', 'second']) {
      const removed = await site.call('DELETE', `/articles/${id}/redirects/${slug}`);
      expect(removed.status).toBe(200);
      expect((await visit(`/sites/${site.siteId}/articles/${slug}`)).status).toBe(404);
    }
    expect((await site.call('GET', `/articles/${id}/redirects`)).body.redirects).toEqual([]);
    expect((await site.call('DELETE', `/articles/${id}/redirects/first`)).status).toBe(404);
    expect((await site.call('DELETE', `/articles/${id}/redirects/third`)).status).toBe(404);

    for (const slug of ['first', 'second']) {
      const taken = await site.call('POST', '/articles', article(slug, { title: `New ${slug}` }));
      expect([slug, taken.status, taken.body.created, taken.body.message]).toEqual([slug, 201, true, undefined]);
      expect(taken.body.id).not.toBe(id);
      const again = await site.call('POST', '/articles', article(slug, { title: `Newer ${slug}` }));
      expect([again.status, again.body.id]).toEqual([200, taken.body.id]);
      const page = await visit(`/sites/${site.siteId}/articles/${slug}`);
      expect([page.status, page.text.includes(`Newer ${slug}`)]).toEqual([200, true]);
    }
    expect((await visit(`/sites/${site.siteId}/articles/third`)).text).toContain('Title of first');
    // The renamed page cannot take back a slug another page holds now.
    expect((await rename(site, 'article', id, 'first')).status).toBe(409);
  });

  it('refuses a taken or reserved slug (409), an invalid one (400) and another site’s page (404), writing nothing', async () => {
    const site = await siteClient(t, 'Refusing site');
    const { id } = (await site.call('POST', '/articles', article('mine'))).body;
    const other = (await site.call('POST', '/articles', article('other'))).body.id;
    await rename(site, 'article', other, 'other-now');

    const taken = await rename(site, 'article', id, 'other-now');
    expect([taken.status, taken.body.code, taken.body.page_id]).toEqual([409, 'already_exists', other]);
    expect(taken.body.message).toBe(`The slug "other-now" is the article ${other}'s`);
    const plainTaken = await rename(site, 'article', other, 'mine');
    expect([plainTaken.status, plainTaken.body.page_id]).toEqual([409, id]);
    const reserved = await rename(site, 'article', id, 'other');
    expect([reserved.status, reserved.body.page_id]).toEqual([409, other]);
    expect(reserved.body.message).toContain('redirects to the article');
    expect((await rename(site, 'article', id, 'Not A Slug')).body.code).toBe('validation_failed');
    expect((await site.call('POST', `/articles/${id}/rename`, {})).status).toBe(400);
    expect((await rename(site, 'article', 'art_aaaaaaaaaaaaaaaa', 'x')).status).toBe(404);
    expect((await rename(site, 'question', id, 'x')).status).toBe(404);
    const stranger = await siteClient(t, 'Stranger site');
    expect((await rename(stranger, 'article', id, 'stolen')).status).toBe(404);
    expect((await stranger.call('DELETE', `/articles/${other}/redirects/other`)).status).toBe(404);
    expect((await stranger.call('GET', `/articles/${other}/redirects`)).status).toBe(404);
    expect((await site.call('GET', `/articles/${id}`)).body.slug).toBe('mine');
    expect((await visit(`/sites/${site.siteId}/articles/mine`)).status).toBe(200);
    expect((await visit(`/sites/${stranger.siteId}/articles/other`)).status).toBe(404);
  });

  it('shows the new URL wherever the page is named: links, related cards, listings, sitemaps and the feed', async () => {
    const site = await siteClient(t, 'Links site');
    const root = `${t.url}/sites/${site.siteId}`;
    const { id } = (await site.call('POST', '/articles', article('target', { category: 'News' }))).body;
    await site.call(
      'POST',
      '/articles',
      article('linker', {
        body: [{ _type: 'paragraph', text: `See [the target](page:${id}).` }],
        related_article_ids: [id],
      }),
    );
    await rename(site, 'article', id, 'moved-target');
    const oldUrl = `${root}/articles/target"`;
    const newUrl = `${root}/articles/moved-target"`;
    const shown = [
      `/sites/${site.siteId}/articles/linker`,
      `/sites/${site.siteId}/`,
      `/sites/${site.siteId}/categories/news`,
      `/sites/${site.siteId}/feed.xml`,
    ];
    const sitemaps = [...(await visit(`/sites/${site.siteId}/sitemap.xml`)).text.matchAll(/<loc>([^<]+)<\/loc>/g)];
    for (const path of [...shown, ...sitemaps.map((m) => String(m[1]).slice(t.url.length))]) {
      const { text } = await visit(path);
      const named = text.replaceAll(/<(loc|id)>([^<]*)<\/\1>/g, '"$2"').replaceAll(/href="([^"]*)"/g, '"$1"');
      expect([path, named.includes(oldUrl)]).toEqual([path, false]);
      if (!path.endsWith('sitemap.xml') && !path.includes('listings'))
        expect([path, named.includes(newUrl)]).toEqual([path, true]);
    }
    // The linking page's link and its related card both name the new URL.
    const linker = (await visit(`/sites/${site.siteId}/articles/linker`)).text;
    expect(linker.split(`href="${root}/articles/moved-target"`).length - 1).toBeGreaterThanOrEqual(2);
  });

  it('answers a path with a slash at the end with 301 to the page, and redirects at the site’s own domain', async () => {
    const site = await siteClient(t, 'Domain site', { domain: 'rename.example.com' });
    expect(await t.store.sites.serveDomain(site.siteId, 'rename.example.com')).toBe('served');
    const { id } = (await site.call('POST', '/articles', article('here'))).body;
    const slash = await visit(`/sites/${site.siteId}/articles/here/`);
    expect([slash.status, slash.location]).toEqual([301, 'https://rename.example.com/articles/here']);
    const plain = await siteClient(t, 'Plain site');
    await plain.call('POST', '/questions', question('asked', { topics: ['Sizing'] }));
    const plainSlash = await visit(`/sites/${plain.siteId}/questions/asked/`);
    expect([plainSlash.status, plainSlash.location]).toEqual([301, `${t.url}/sites/${plain.siteId}/questions/asked`]);
    expect((await visit(`/sites/${plain.siteId}/questions/missing/`)).status).toBe(404);
    // Listings too, but the home, whose URL is the one with the slash.
    for (const path of ['/questions', '/topics/sizing']) {
      const moved = await visit(`/sites/${plain.siteId}${path}/`);
      expect([path, moved.status, moved.location]).toEqual([path, 301, `${t.url}/sites/${plain.siteId}${path}`]);
    }
    expect((await visit(`/sites/${plain.siteId}/topics/none/`)).status).toBe(404);
    expect((await visit(`/sites/${plain.siteId}/`)).status).toBe(200);

    await rename(site, 'article', id, 'there');
    for (const path of ['/articles/here', '/articles/here/', '/articles/there/']) {
      const moved = await getAtHost(t, 'rename.example.com', path);
      expect([path, moved.status, moved.headers.location]).toEqual([
        path,
        301,
        'https://rename.example.com/articles/there',
      ]);
      expect(moved.headers['cache-control']).toBe('public, max-age=60');
    }
    expect((await getAtHost(t, 'rename.example.com', '/articles/there')).status).toBe(200);
  });
});
