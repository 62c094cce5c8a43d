import { createHash } from 'node:crypto';
import { article, getAtHost, publishArticle, publishQuestion, requestPathCount, useTestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

const t = useTestStack();

const visit = (type: 'articles' | 'questions', slug: string, siteId = t.siteId, headers: Record<string, string> = {}) =>
  t.call('GET', `/sites/${siteId}/${type}/${slug}`, undefined, { key: null, headers });
const mainOf = (html: string): string => given(/<main id="content">([\s\S]*)<\/main>/.exec(html)?.[1], 'the main');

describe('visitor pages', () => {
  it('renders a published article from its blocks, never from copy, with the head tags', async () => {
    await publishArticle(t, 'rendered', {
      title: 'Rendered page',
      excerpt: 'Card summary',
      copy: 'COPY-ONLY-TEXT must never reach readers',
      body: [
        { _type: 'heading', level: 2, text: 'Section' },
        { _type: 'paragraph', text: 'Body text' },
      ],
      cover_image: 'https://img.example.com/cover.jpg',
    });
    const res = await visit('articles', 'rendered');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>Rendered page</title>');
    expect(res.text).toContain('<meta name="description" content="Card summary">');
    expect(res.text).toContain(`<link rel="canonical" href="${t.url}/sites/${t.siteId}/articles/rendered">`);
    expect(res.text).not.toContain('noindex');
    expect(res.text).toContain('<h2>Section</h2>');
    expect(res.text).toContain('<p>Body text</p>');
    expect(res.text).toContain('src="https://img.example.com/cover.jpg"');
    expect(res.text).not.toContain('COPY-ONLY-TEXT');
    const jsonLd = JSON.parse(
      given(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(res.text)?.[1], 'the JSON-LD'),
    );
    expect(jsonLd).toMatchObject({ '@context': 'https://schema.org', '@type': 'Article', headline: 'Rendered page' });
  });

  it('uses canonical_url, noindex and schema_type when given', async () => {
    await publishArticle(t, 'seo-fields', {
      canonical_url: 'https://www.example.com/guide',
      noindex: true,
      schema_type: 'HowTo',
      meta_title: 'SEO title',
    });
    const html = (await visit('articles', 'seo-fields')).text;
    expect(html).toContain('<link rel="canonical" href="https://www.example.com/guide">');
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).toContain('<title>SEO title</title>');
    expect(html).toContain('"@type":"HowTo"');
  });

  it('answers 404 for a draft or unknown page and for another site id', async () => {
    await publishArticle(t, 'still-draft', { status: 'draft' });
    expect((await visit('articles', 'still-draft')).status).toBe(404);
    expect((await visit('articles', 'never-published')).status).toBe(404);
    expect((await visit('articles', 'rendered', t.siteId + 50)).status).toBe(404);
    expect((await visit('questions', 'rendered')).status).toBe(404);
    // The site's 404 page has its header, a way home and its footer, and asks not to be indexed.
    const draft = (await visit('articles', 'still-draft')).text;
    const home = `${t.url}/sites/${t.siteId}/`;
    expect(draft).toContain('<meta name="robots" content="noindex">');
    expect(draft).toContain(`<header class="site"><div class="wrap"><a class="site-name" href="${home}">`);
    expect(draft).toContain(`<a href="${home}">Go to the home page of `);
    expect(draft).toContain('<footer class="site">');
    // No site is there: the bare message, no other site's header.
    expect((await visit('articles', 'rendered', t.siteId + 50)).text).not.toContain('<header');
    const asJson = await visit('articles', 'still-draft', t.siteId, { accept: 'application/json' });
    expect(asJson.body).toMatchObject({ error: 'not_found', code: 'not_found' });
  });

  it('links [text](page:<id>) only to pages readers can reach', async () => {
    const live = (await publishArticle(t, 'link-live')).body;
    const draft = (await publishQuestion(t, 'link-draft', { status: 'draft' })).body;
    await publishArticle(t, 'linker', {
      body: [
        {
          _type: 'paragraph',
          text:
            'Read [the live one](page:' +
            live.id +
            ') and [the draft](page:' +
            draft.id +
            ') and [ghost](page:art_zzzzzzzzzzzzzzzz).',
        },
      ],
    });
    const html = (await visit('articles', 'linker')).text;
    expect(html).toContain(`<a href="${t.url}/sites/${t.siteId}/articles/link-live">the live one</a>`);
    expect(html).toContain(' and the draft and ghost.');
    expect(html).not.toContain('page:');

    // Once the draft is published, the same link renders.
    await publishQuestion(t, 'link-draft', { status: 'published' });
    expect((await visit('articles', 'linker')).text).toContain(
      `<a href="${t.url}/sites/${t.siteId}/questions/link-draft">the draft</a>`,
    );
  });

  it('applies the citation rules on a question page', async () => {
    await publishQuestion(t, 'cited', {
      answer: [
        {
          _type: 'paragraph',
          children: [
            { _type: 'span', text: 'Water boils at 100 °C' },
            { _type: 'sourceCitation', id: 'src-1' },
            { _type: 'span', text: ' at sea level ' },
            { _type: 'sourceCitation', id: 'src-9' },
            { _type: 'span', text: '.' },
          ],
        },
        { _type: 'list', style: 'bullet', items: ['Known [src-2]', 'Unknown [src-7]', 'Plain'] },
      ],
      sources: [
        { id: 'src-1', title: 'Physics book', url: 'https://physics.example/boil', accessed_at: '2026-10-01' },
        { id: 'src-2', title: 'Chemistry site', url: 'https://chem.example', accessed_at: '2026-10-02' },
      ],
    });
    const html = (await visit('questions', 'cited')).text;
    expect(html).toContain(
      'Water boils at 100 °C<sup class="citation"><a href="#source-1">[1]</a></sup> at sea level.',
    );
    expect(html).toContain('<li>Known <sup class="citation"><a href="#source-2">[2]</a></sup></li>');
    expect(html).toContain('<li>Unknown</li>');
    expect(html).not.toContain('src-7');
    expect(html).not.toContain('src-9');
    expect(html).toContain(
      '<li id="source-1"><a href="https://physics.example/boil" rel="nofollow noopener">Physics book</a>',
    );
    expect(html).toContain('"@type":"Question"');
  });

  it('applies the citation rules to literal [src-n] markers in every text of an answer', async () => {
    const cited = (n: number) => `<sup class="citation"><a href="#source-${n}">[${n}]</a></sup>`;
    await publishQuestion(t, 'cited-everywhere', {
      answer: [
        { _type: 'heading', level: 2, text: 'Heading [src-1] and [src-7]' },
        { _type: 'paragraph', text: 'Paragraph [src-2] text [src-8].' },
        { _type: 'paragraph', children: [{ _type: 'span', text: 'Span [src-1] here [src-9]' }] },
        { _type: 'quote', text: 'Quote [src-2]', cite: 'Someone [src-7]' },
        { _type: 'callout', tone: 'tip', text: 'Callout [src-1] [src-7]' },
        { _type: 'table', header: ['Head [src-2]'], rows: [['Cell [src-1]', 'Gone\t[src-7]']] },
        { _type: 'statBar', stats: [{ value: '42% [src-2]', label: 'Label [src-7]' }] },
        { _type: 'image', url: 'https://img.example/a.png', alt: 'a', caption: 'Caption [src-1]' },
      ],
      sources: [
        { id: 'src-1', title: 'One', url: 'https://one.example', accessed_at: '2026-10-01' },
        { id: 'src-2', title: 'Two', url: 'https://two.example', accessed_at: '2026-10-02' },
      ],
    });
    const html = (await visit('questions', 'cited-everywhere')).text;
    expect(html).toContain(`<h2>Heading ${cited(1)} and</h2>`);
    expect(html).toContain(`<p>Paragraph ${cited(2)} text.</p>`);
    expect(html).toContain(`<p>Span ${cited(1)} here</p>`);
    expect(html).toContain(`<blockquote><p>Quote ${cited(2)}</p><footer><cite>Someone</cite></footer></blockquote>`);
    expect(html).toContain(`<p>Callout ${cited(1)}</p>`);
    expect(html).toContain(`<th>Head ${cited(2)}</th>`);
    expect(html).toContain(`<td>Cell ${cited(1)}</td><td>Gone</td>`);
    expect(html).toContain(`<dt>Label</dt><dd>42% ${cited(2)}</dd>`);
    expect(html).toContain(`<figcaption>Caption ${cited(1)}</figcaption>`);
    // a reader never sees a raw marker, and the JSON-LD answer text carries none either
    expect(html).not.toMatch(/\[src-\d+\]/);
  });

  it('renders no citation markers in an article', async () => {
    await publishArticle(t, 'no-cites', {
      body: [
        {
          _type: 'paragraph',
          children: [
            { _type: 'span', text: 'Claim' },
            { _type: 'sourceCitation', id: 'src-1' },
            { _type: 'span', text: '!' },
          ],
        },
        { _type: 'list', items: ['Point [src-1]', 'Other [src-2] point'] },
      ],
    });
    const html = (await visit('articles', 'no-cites')).text;
    expect(html).toContain('<p>Claim!</p>');
    expect(html).toContain('<li>Point</li><li>Other point</li>');
    expect(mainOf(html)).not.toMatch(/src-\d|citation|source-\d/);
  });

  it('escapes hostile text and renders only http, https and mailto URLs', async () => {
    const hostile = '<script>alert("x")</script>';
    const res = await publishArticle(t, 'hostile', {
      title: `T ${hostile}`,
      excerpt: `E ${hostile}`,
      cover_image: 'javascript:alert(1)',
      body: [
        { _type: 'heading', level: 2, text: hostile },
        {
          _type: 'paragraph',
          text: `P ${hostile} [bad](javascript:alert(2)) [data](data:text/html,hi) [ok](https://ok.example/?a=1&b="2") [mail](mailto:a@b.example)`,
        },
        { _type: 'image', url: 'javascript:alert(3)', alt: hostile },
        { _type: 'image', url: 'https://img.example/x.png', alt: `"><img src=x onerror=alert(4)>` },
        { _type: 'table', header: [hostile], rows: [[hostile]] },
        { _type: 'statBar', stats: [{ value: hostile, label: hostile }] },
        { _type: `<script>evil()</script>` },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.warnings.map((w: { path: string }) => w.path)).toEqual(
      expect.arrayContaining(['cover_image', 'body[2].url', 'body[6]']),
    );
    const html = (await visit('articles', 'hostile')).text;
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<script>evil');
    expect(html).not.toMatch(/(href|src)="(javascript|data):/i);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('<a href="https://ok.example/?a=1&amp;b=%222%22">ok</a>');
    expect(html).toContain('<a href="mailto:a@b.example">mail</a>');
    expect(html).toContain('alt="&quot;&gt;&lt;img src=x onerror=alert(4)&gt;"');
    // The only script elements are the JSON-LD (the page's and its breadcrumbs'), and nothing in them closes one early.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('sends a Content-Security-Policy that allows no script, no framing and a Referrer-Policy, on every HTML page', async () => {
    await publishArticle(t, 'headers-live');
    const gone = (await apiClient(t).route('POST /articles', { body: article('headers-gone') })).body.id;
    await apiClient(t).route('POST /api/content/notify', { body: { id: gone, type: 'article', action: 'deleted' } });

    const pages = [
      await visit('articles', 'headers-live'),
      await visit('articles', 'headers-missing'),
      await visit('articles', 'headers-gone'),
    ];
    expect(pages.map((p) => p.status)).toEqual([200, 404, 410]);
    for (const page of pages) {
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      const csp = new Map(
        given(page.headers.get('content-security-policy'), 'the CSP')
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [given(name, 'a directive'), values.join(' ')]),
      );
      expect(csp.get('default-src')).toBe("'none'");
      expect(csp.get('script-src')).toBe("'none'");
      expect(csp.get('frame-ancestors')).toBe("'none'");
      expect(csp.get('base-uri')).toBe("'none'");
      expect(csp.get('form-action')).toBe("'none'");
      // what the renderer emits still loads: images from http(s) sources, the one inline stylesheet, nothing else
      expect(csp.get('img-src')).toBe('http: https:');
      const style = given(/<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1], 'the style');
      expect(csp.get('style-src')).toBe(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
      expect(page.text.match(/<style/g)).toHaveLength(1);
      expect(page.text).not.toMatch(/ style=|<link rel="stylesheet"/);
    }
  });

  it('renders the site, breadcrumbs, Open Graph and Twitter tags and JSON-LD with its publisher (issue 38)', async () => {
    const published = await publishArticle(t, 'themed', {
      title: 'Shoes "fast" & <light>',
      excerpt: 'Pick by fit',
      category: 'Running Shoes',
      cover_image: 'https://img.example.com/c.jpg',
      body: [
        { _type: 'heading', level: 2, text: 'Fit' },
        { _type: 'statBar', stats: [{ value: '42%', label: 'faster' }] },
        { _type: 'code', language: 'ts', code: 'const a = 1 < 2;' },
      ],
    });
    // `code` is a known type: no warning.
    expect(published.body.warnings).toEqual([]);
    const html = (await visit('articles', 'themed')).text;
    const home = `${t.url}/sites/${t.siteId}/`;
    const url = `${t.url}/sites/${t.siteId}/articles/themed`;
    expect(html).toContain(`<a class="site-name" href="${home}">`);
    expect(html).toContain(
      `<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="${home}">Home</a></li><li><a href="${home}categories/running-shoes">Running Shoes</a></li><li aria-current="page">Shoes &quot;fast&quot; &amp; &lt;light&gt;</li></ol></nav>`,
    );
    expect(html).toContain('<meta property="og:title" content="Shoes &quot;fast&quot; &amp; &lt;light&gt;">');
    expect(html).toContain(`<meta property="og:url" content="${url}">`);
    expect(html).toContain('<meta property="og:image" content="https://img.example.com/c.jpg">');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html).toContain('<meta name="twitter:description" content="Pick by fit">');
    expect(html).toContain('<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>');
    const [page, crumbs] = [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)].map((m) =>
      JSON.parse(given(m[1], 'the JSON-LD')),
    );
    expect(page.publisher).toMatchObject({ '@type': 'Organization', url: home });
    expect(page.publisher.name).toBe((html.match(/<meta property="og:site_name" content="([^"]*)">/) ?? [])[1]);
    expect(crumbs.itemListElement.map((c: { item: string }) => c.item)).toEqual([
      home,
      `${home}categories/running-shoes`,
      url,
    ]);
  });

  it('shows related pages as cards with their titles, only the live ones, in one batch read (issue 38)', async () => {
    const live = (await publishArticle(t, 'rel-live', { title: 'Live <one>' })).body.id;
    const draft = (await publishQuestion(t, 'rel-draft', { status: 'draft' })).body.id;
    const asked = (await publishQuestion(t, 'rel-asked')).body.id;
    await publishArticle(t, 'rel-host', {
      related_article_ids: [live, 'art_zzzzzzzzzzzzzzzz'],
      related_question_ids: [draft, asked],
      body: [{ _type: 'paragraph', text: `See [it](page:${live}).` }],
    });
    await t.stack.drain();
    // The page (its site read by a view just before, and kept), then the links' and the cards' targets in one batch.
    await visit('articles', 'rel-live');
    const counted = await requestPathCount(t, () => visit('articles', 'rel-host'));
    expect([counted.result.status, counted.requests]).toEqual([200, 2]);
    const html = counted.result.text;
    const cards = [...html.matchAll(/<a class="card" href="([^"]*)">.*?<span class="card-title">(.*?)<\/span>/g)].map(
      (m) => [m[1], m[2]],
    );
    expect(cards).toEqual([
      [`${t.url}/sites/${t.siteId}/articles/rel-live`, 'Live &lt;one&gt;'],
      [`${t.url}/sites/${t.siteId}/questions/rel-asked`, 'What is rel-asked?'],
    ]);
    // A page with neither links nor related pages: the page's one read.
    expect((await requestPathCount(t, () => visit('articles', 'rel-live'))).requests).toBe(1);
  });

  it('shows at most 12 related cards however many pages a page names, and reads only those', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 15; i++)
      ids.push((await publishArticle(t, `many-rel-${i}`, { title: `Related ${i}` })).body.id);
    await publishArticle(t, 'many-rel-host', { related_article_ids: ids });
    await t.stack.drain();
    await visit('articles', 'many-rel-0'); // its site read and kept, as a view just before leaves it
    const recording = t.stack.dynamo.record();
    const html = (await visit('articles', 'many-rel-host')).text;
    recording.stop();
    const titles = [...html.matchAll(/<span class="card-title">(.*?)<\/span>/g)].map((m) => m[1]);
    expect(titles).toEqual(Array.from({ length: 12 }, (_v, i) => `Related ${i}`));
    expect(recording.operations()).toEqual(['Query', 'BatchGetItem']);
  });

  it('renders the site-owned summary and community answers of a question', async () => {
    const q = (await publishQuestion(t, 'with-community')).body;
    await apiClient(t).route('PUT /questions/{id}/summary', {
      params: { id: q.id },
      body: { summary: 'Summary <b>by site</b>' },
    });
    await apiClient(t).route('POST /questions/{id}/answers', {
      params: { id: q.id },
      body: {
        author: 'Ann',
        blocks: [{ _type: 'paragraph', text: 'Community view' }],
      },
    });
    const html = (await visit('questions', 'with-community')).text;
    expect(html).toMatch(
      /<section class="part summary"[^>]*>\n<h2[^>]*>In short<\/h2>\n<p>Summary &lt;b&gt;by site&lt;\/b&gt;<\/p>/,
    );
    expect(html).toContain('<h3>Ann</h3>');
    expect(html).toContain('<p>Community view</p>');
  });
});

describe('the Host a request names', () => {
  it('never decides the URLs a cacheable page names: a host no site serves gets nothing, the API’s own its own address', async () => {
    await publishArticle(t, 'host-proof');
    const foreign = await getAtHost(t, 'evil.example.com', `/sites/${t.siteId}/articles/host-proof`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('host-proof');
    const own = await getAtHost(t, 'x', `/sites/${t.siteId}/articles/host-proof`);
    expect(own.status).toBe(200);
    expect(own.text).toContain(`<link rel="canonical" href="${t.url}/sites/${t.siteId}/articles/host-proof">`);
  });
});

describe('caching', () => {
  const CACHE_CONTROL = 'public, max-age=60';
  const validatorsOf = (res: { headers: Headers }) => ({
    etag: given(res.headers.get('etag'), 'an ETag'),
    lastModified: given(res.headers.get('last-modified'), 'a Last-Modified'),
  });

  it('sends ETag, Last-Modified and a public Cache-Control, and answers 304 with no body to a matching If-None-Match or If-Modified-Since', async () => {
    await publishArticle(t, 'cached');
    const first = await visit('articles', 'cached');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe(CACHE_CONTROL);
    const { etag, lastModified } = validatorsOf(first);
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    expect((await visit('articles', 'cached')).headers.get('etag')).toBe(etag);

    const conditions: Record<string, string>[] = [
      { 'if-none-match': etag },
      { 'if-none-match': `"other", W/${etag}` },
      { 'if-none-match': '*' },
      { 'if-modified-since': lastModified },
    ];
    for (const headers of conditions) {
      const again = await visit('articles', 'cached', t.siteId, headers);
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('last-modified')).toBe(lastModified);
      expect(again.headers.get('cache-control')).toBe(CACHE_CONTROL);
    }

    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
    const later = new Date(Date.parse(lastModified) + 1000).toUTCString();
    expect((await visit('articles', 'cached', t.siteId, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await visit('articles', 'cached', t.siteId, { 'if-modified-since': earlier })).status).toBe(200);
    expect((await visit('articles', 'cached', t.siteId, { 'if-modified-since': 'not a date' })).status).toBe(200);
    // The ETag decides when both are sent.
    expect(
      (await visit('articles', 'cached', t.siteId, { 'if-none-match': '"other"', 'if-modified-since': later })).status,
    ).toBe(200);
  });

  it('keeps 404 and 410 pages out of caches, so a page published or restored shows at once', async () => {
    const gone = (await publishArticle(t, 'cache-gone')).body.id;
    await apiClient(t).route('POST /api/content/notify', { body: { id: gone, type: 'article', action: 'deleted' } });
    for (const slug of ['cache-gone', 'cache-never']) {
      const page = await visit('articles', slug, t.siteId, { 'if-none-match': '*' });
      expect([404, 410]).toContain(page.status);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('etag')).toBeNull();
    }
  });

  it('changes the ETag on a republish', async () => {
    await publishArticle(t, 'cache-republished');
    const before = validatorsOf(await visit('articles', 'cache-republished'));
    await publishArticle(t, 'cache-republished', { title: 'A new title' });
    const after = await visit('articles', 'cache-republished', t.siteId, { 'if-none-match': before.etag });
    expect(after.status).toBe(200);
    expect(after.text).toContain('A new title');
    expect(validatorsOf(after).etag).not.toBe(before.etag);
    expect(Date.parse(validatorsOf(after).lastModified)).toBeGreaterThanOrEqual(Date.parse(before.lastModified));
  });

  it('changes the ETag, and Last-Modified to the relink, when a notify takes a linked page down and when it brings it back', async () => {
    const target = (await publishArticle(t, 'cache-target')).body.id;
    // Readers see the body's link; the related id makes relink reach the linker.
    const body = [{ _type: 'paragraph', text: `See [the target](page:${target}).` }];
    const linker = (await publishArticle(t, 'cache-linker', { body, related_article_ids: [target] })).body.id;
    const linked = validatorsOf(await visit('articles', 'cache-linker'));

    await apiClient(t).route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'unpublished' },
    });
    await t.stack.drain();
    const down = await visit('articles', 'cache-linker', t.siteId, { 'if-none-match': linked.etag });
    expect(down.status).toBe(200);
    expect(down.text).not.toContain('/articles/cache-target');
    const unlinked = validatorsOf(down);
    expect(unlinked.etag).not.toBe(linked.etag);
    const { relinked_at } = (await apiClient(t).route('GET /articles/{id}', { params: { id: linker } })).body;
    expect(unlinked.lastModified).toBe(new Date(given(relinked_at, 'the relink time')).toUTCString());

    await apiClient(t).route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'published' },
    });
    await t.stack.drain();
    const up = await visit('articles', 'cache-linker', t.siteId, { 'if-none-match': unlinked.etag });
    expect(up.status).toBe(200);
    expect(up.text).toContain('/articles/cache-target');
    // What readers see is as before the target went down, and so is the ETag; a cache with that copy may keep it.
    expect(validatorsOf(up).etag).toBe(linked.etag);
    expect(validatorsOf(up).lastModified).toBe(
      new Date(
        given(
          (await apiClient(t).route('GET /articles/{id}', { params: { id: linker } })).body.relinked_at,
          'the relink time',
        ),
      ).toUTCString(),
    );
  });

  it('changes the ETag when the site sets the summary or adds a community answer', async () => {
    const q = (await publishQuestion(t, 'cache-parts')).body.id;
    const etags = [validatorsOf(await visit('questions', 'cache-parts')).etag];
    await apiClient(t).route('PUT /questions/{id}/summary', { params: { id: q }, body: { summary: 'In short' } });
    etags.push(
      validatorsOf(
        await visit('questions', 'cache-parts', t.siteId, { 'if-none-match': given(etags[0], 'the first ETag') }),
      ).etag,
    );
    await apiClient(t).route('POST /questions/{id}/answers', {
      params: { id: q },
      body: { author: 'Ann', blocks: [{ _type: 'paragraph', text: 'Mine' }] },
    });
    etags.push(
      validatorsOf(
        await visit('questions', 'cache-parts', t.siteId, { 'if-none-match': given(etags[1], 'the second ETag') }),
      ).etag,
    );
    expect(new Set(etags).size).toBe(3);
  });
});
