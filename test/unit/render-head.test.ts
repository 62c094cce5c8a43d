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
    { kind: 'home', name: null, pages: [], url: `${ROOT}/`, next: null, first: null },
    { site: site(locale) },
  ),
  category: renderListing(
    { kind: 'category', name: 'Trail', pages: [], url: `${ROOT}/categories/trail`, next: null, first: null },
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
      { kind: 'home', name: null, pages: [], url: `${ROOT}/?before=x`, next: null, first: `${ROOT}/` },
      { site: site('US/en') },
    );
    const { article: a, question: q, category } = pageKinds('US/en');
    for (const html of [older, a, q, category])
      expect(jsonLd(html ?? '').map((ld) => ld['@type'])).not.toContain('WebSite');
  });
});
