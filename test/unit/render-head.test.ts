import type { ArticleInput, PageDoc, PageRecord } from '@cm/contract';
import { articleDoc, pageId, pageRecord, questionDoc, renderListing, renderPage, type RenderOptions } from '@cm/core';

/*
 * What every visitor page's head declares of its site (docs/api.md#visitor-pages): its language, its
 * Open Graph locale and its icon, on every page kind; the home's WebSite; the Open Graph of an image.
 */

const NOW = '2026-11-21T09:30:00.000Z';
const ROOT = 'https://shop.example.com';

const site = (locale: string): RenderOptions['site'] => ({
  name: 'Run & Co',
  root: ROOT,
  locale,
  icon: `${ROOT}/favicon.ico`,
});

const options = (locale: string): RenderOptions => ({
  pageUrl: `${ROOT}/articles/the-page`,
  site: site(locale),
  linkTarget: () => null,
});

const record = (doc: PageDoc, type: 'article' | 'question'): PageRecord =>
  pageRecord({
    site_id: 1,
    type,
    id: pageId(1, type, doc.slug),
    doc,
    status: doc.status,
    created_at: NOW,
    updated_at: doc.updated_at,
    deleted: false,
    suppressed: [],
    relinked_at: null,
    summary: null,
    community_answers: [],
  });

const article = (input: Partial<ArticleInput> = {}): PageRecord =>
  record(articleDoc({ slug: 'the-page', title: 'The title', body: [], ...input }, NOW), 'article');
const question = (): PageRecord =>
  record(questionDoc({ slug: 'the-question', question: 'Why?', answer: [], topics: ['Fit'] }, NOW), 'question');

/** Every page kind a site serves, rendered in a locale. */
const pageKinds = (locale: string): Record<string, string> => ({
  article: renderPage(article(), options(locale)),
  question: renderPage(question(), options(locale)),
  home: renderListing(
    { kind: 'home', name: null, pages: [], url: `${ROOT}/`, next: null, first: null, newer: null },
    { site: site(locale) },
  ),
  category: renderListing(
    {
      kind: 'category',
      name: 'Trail',
      pages: [],
      url: `${ROOT}/categories/trail`,
      next: null,
      first: null,
      newer: null,
    },
    { site: site(locale) },
  ),
});

const head = (html: string): string => html.slice(0, html.indexOf('</head>'));
const metas = (html: string): Map<string, string> =>
  new Map(
    [...head(html).matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map((m) => [
      m[1] ?? '',
      m[2] ?? '',
    ]),
  );

describe("a page's language (WCAG 3.1.1) and Open Graph locale, from the site's locale", () => {
  it.each(Object.keys(pageKinds('US/en')))('declares them on the %s page', (kind) => {
    const us = pageKinds('US/en')[kind] ?? '';
    expect(us).toContain('<html lang="en-US">');
    expect(metas(us).get('og:locale')).toBe('en_US');
    const de = pageKinds('AT/de')[kind] ?? '';
    expect(de).toContain('<html lang="de-AT">');
    expect(metas(de).get('og:locale')).toBe('de_AT');
  });

  it('gives a worldwide site its language alone, and no og:locale (whose format needs a territory)', () => {
    for (const html of Object.values(pageKinds('WW/fr'))) {
      expect(html).toContain('<html lang="fr">');
      expect(metas(html).has('og:locale')).toBe(false);
    }
  });

  it('reads a stored locale that is not one as the default, never as markup', () => {
    for (const locale of ['"><script>', 'en', 'XX/en', ''])
      for (const html of Object.values(pageKinds(locale))) {
        expect(html).toContain('<html lang="en">');
        expect(html).not.toContain('<script>');
      }
  });
});

describe("a page's icon", () => {
  it.each(Object.keys(pageKinds('US/en')))('is linked from the %s page, where the site serves it', (kind) => {
    const html = pageKinds('US/en')[kind] ?? '';
    expect(head(html)).toContain(`<link rel="icon" href="${ROOT}/favicon.ico" type="image/svg+xml">`);
  });
});

const jsonLd = (html: string): Record<string, unknown>[] =>
  [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)].map((m) => JSON.parse(m[1] ?? 'null'));

describe("the home's WebSite (schema.org), which names the site in search results", () => {
  it('is on the home, with its name, URL and language', () => {
    const website = jsonLd(pageKinds('US/en').home ?? '').filter((ld) => ld['@type'] === 'WebSite');
    expect(website).toEqual([
      {
        '@context': 'https://schema.org',
        '@type': 'WebSite',
        name: 'Run & Co',
        url: `${ROOT}/`,
        inLanguage: 'en-US',
        publisher: { '@type': 'Organization', name: 'Run & Co', url: `${ROOT}/` },
      },
    ]);
  });

  it("is on no other page: not on the home's older pages, a listing, an article or a question", () => {
    const older = renderListing(
      {
        kind: 'home',
        name: null,
        pages: [],
        url: `${ROOT}/?before=x`,
        next: null,
        first: `${ROOT}/`,
        newer: `${ROOT}/`,
      },
      { site: site('US/en') },
    );
    const { article: a, question: q, category } = pageKinds('US/en');
    for (const html of [older, a, q, category])
      expect(jsonLd(html ?? '').map((ld) => ld['@type'])).not.toContain('WebSite');
  });
});

/** A page's meta tags in order, as [name, content] pairs (a name may repeat: article:tag). */
const metaList = (html: string): [string, string][] =>
  [...head(html).matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
const image = (url: string, extra: Record<string, unknown> = {}) => ({ _type: 'image', url, alt: 'Boots', ...extra });

describe("Open Graph: the image's alt text and size, an article's section, a question's tags", () => {
  it("gives a cover the page's title as what it shows, and no size, which the publish does not know", () => {
    const tags = metas(renderPage(article({ cover_image: 'https://img.example.com/c.jpg' }), options('US/en')));
    expect(tags.get('og:image')).toBe('https://img.example.com/c.jpg');
    expect(tags.get('og:image:alt')).toBe('The title');
    expect(tags.get('twitter:image:alt')).toBe('The title');
    expect(tags.has('og:image:width')).toBe(false);
    expect(tags.has('og:image:height')).toBe(false);
  });

  it("gives a block's image its alt text and size, right after og:image", () => {
    const html = renderPage(
      article({ body: [image('https://img.example.com/b.jpg', { width: 1200, height: 630 })] }),
      options('US/en'),
    );
    const list = metaList(html).map(([name]) => name);
    const at = list.indexOf('og:image');
    expect(list.slice(at, at + 4)).toEqual(['og:image', 'og:image:width', 'og:image:height', 'og:image:alt']);
    expect(Object.fromEntries(metaList(html))).toMatchObject({
      'og:image:width': '1200',
      'og:image:height': '630',
      'og:image:alt': 'Boots',
      'twitter:image:alt': 'Boots',
    });
  });

  it('leaves out a size that is not a positive whole number, and falls back to the title for an empty alt', () => {
    const tags = metas(
      renderPage(
        article({ body: [image('https://img.example.com/b.jpg', { alt: '', width: 0, height: 1.5 })] }),
        options('US/en'),
      ),
    );
    expect([tags.get('og:image:alt'), tags.has('og:image:width'), tags.has('og:image:height')]).toEqual([
      'The title',
      false,
      false,
    ]);
  });

  it("names an article's category as article:section, escaped, and none without a category", () => {
    const html = renderPage(article({ category: 'Trail & "Road"' }), options('US/en'));
    expect(head(html)).toContain('<meta property="article:section" content="Trail &amp; &quot;Road&quot;">');
    expect(metas(renderPage(article(), options('US/en'))).has('article:section')).toBe(false);
  });

  it('names each topic a question page lists as an article:tag, those with a page only', () => {
    const doc = questionDoc({ slug: 'q', question: 'Why?', answer: [], topics: ['Fit', 'Sizing', 'fit!', '???'] }, NOW);
    const tags = metaList(renderPage(record(doc, 'question'), options('US/en'))).filter(
      ([name]) => name === 'article:tag',
    );
    expect(tags.map(([, content]) => content)).toEqual(['Fit', 'Sizing']);
  });
});

describe("the cover's size (no layout shift when it loads)", () => {
  it('gives the cover width and height, and a stylesheet box of that shape it fills without stretching', () => {
    const html = renderPage(article({ cover_image: 'https://img.example.com/c.jpg' }), options('US/en'));
    const img = /<img class="cover" [^>]*>/.exec(html)?.[0] ?? '';
    const width = Number(/ width="(\d+)"/.exec(img)?.[1]);
    const height = Number(/ height="(\d+)"/.exec(img)?.[1]);
    expect(width).toBeGreaterThan(0);
    expect(height).toBeGreaterThan(0);
    // The attributes alone would let the image's own shape win once it loads (aspect-ratio: auto): the
    // stylesheet holds the box to the same shape whatever the image is.
    const rule = /\.cover\{([^}]*)\}/.exec(html)?.[1] ?? '';
    expect(rule).toContain(`aspect-ratio:${width}/${height}`);
    expect(rule).toContain('object-fit:cover');
    expect(rule).toContain('width:100%');
  });
});
