import {
  articleDoc,
  feedXml,
  inSitemap,
  languageTags,
  monthRange,
  monthsBetween,
  pageCard,
  questionDoc,
  sitemapShardOf,
} from '@cm/core';
import { DOMParser } from 'linkedom';
import { Locale } from '@cm/contract';
import type { ListedPage } from '@cm/contract';

/* The pure parts of the site's listings and discovery files. */

describe('sitemap months', () => {
  it('lists every month from the first to the last, across years', () => {
    expect(monthsBetween('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(monthsBetween('2026-02', '2026-02')).toEqual(['2026-02']);
    expect(monthsBetween('2026-03', '2026-02')).toEqual([]);
  });

  it('bounds a month as text: every first publish in it sorts between, the next month’s after', () => {
    const { from, to } = monthRange('2026-12');
    expect([from, to]).toEqual(['2026-12', '2027-01']);
    for (const inside of ['2026-12-01T00:00:00.000Z#art_a', '2026-12-31T23:59:59.999Z#qst_z'])
      expect(inside >= from && inside <= to).toBe(true);
    expect('2027-01-01T00:00:00.000Z#art_a' <= to).toBe(false);
  });

  it('reads a sitemap name as its month, and nothing else', () => {
    expect(sitemapShardOf('2026-11.xml')).toBe('2026-11');
    for (const name of ['2026-13.xml', '2026-1.xml', '2026-11', '2026-11.xml.gz', '../2026-11.xml'])
      expect(sitemapShardOf(name)).toBeNull();
  });
});

describe('a page in the sitemap', () => {
  const root = 'https://shop.example.com';
  const page = (extra: Partial<ListedPage>): ListedPage => ({
    id: 'art_x',
    type: 'article',
    slug: 'boots',
    title: 'Boots',
    card_text: null,
    category: null,
    created_at: '2026-11-01T00:00:00.000Z',
    visible_at: '2026-11-01T00:00:00.000Z',
    noindex: false,
    canonical_url: null,
    ...extra,
  });
  it('is there unless search engines are asked to leave it, or to index another URL', () => {
    expect(inSitemap(root, page({}))).toBe(true);
    expect(inSitemap(root, page({ canonical_url: `${root}/articles/boots` }))).toBe(true);
    expect(inSitemap(root, page({ noindex: true }))).toBe(false);
    expect(inSitemap(root, page({ canonical_url: 'https://elsewhere.example.com/boots' }))).toBe(false);
    expect(inSitemap(root, page({ canonical_url: 'javascript:alert(1)' }))).toBe(false);
  });
});

describe('a page’s card', () => {
  const now = '2026-11-28T00:00:00.000Z';
  it('says what its meta description says, else its first words; lists an article in its category', () => {
    const body = [{ _type: 'paragraph', text: 'Fit first.' }];
    expect(pageCard(articleDoc({ slug: 'a', title: 'A', body, category: 'Trail Gear!' }, now))).toEqual({
      card_text: 'Fit first.',
      category: 'Trail Gear!',
      noindex: false,
      canonical_url: null,
      sections: [{ kind: 'category', slug: 'trail-gear', name: 'Trail Gear!' }],
    });
    expect(
      pageCard(articleDoc({ slug: 'a', title: 'A', body: [], excerpt: 'Short.', category: '***' }, now)),
    ).toMatchObject({
      card_text: 'Short.',
      sections: [],
    });
  });

  it('lists a question in its first 20 topics, one per slug', () => {
    const topics = ['Fit', 'fit', ...Array.from({ length: 25 }, (_, i) => `Topic ${i}`)];
    const card = pageCard(questionDoc({ slug: 'q', question: 'Q?', answer: [], topics }, now));
    expect(card.card_text).toBeNull();
    expect(card.sections).toHaveLength(20);
    expect(card.sections[0]).toEqual({ kind: 'topic', slug: 'fit', name: 'Fit' });
    expect(card.sections[1]).toEqual({ kind: 'topic', slug: 'topic-0', name: 'Topic 0' });
  });
});

describe('the feed', () => {
  const site = {
    site_id: 7,
    name: 'Seven',
    domain: 'Shop.Example.com',
    locale: 'GB/en',
    created_at: '2026-03-04T05:06:07.000Z',
    root: 'https://pages.example/sites/7',
  };
  const root = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml').documentElement;

  it('mints its ids under the site’s domain as stored, or under .invalid when that is no hostname (RFC 4151)', () => {
    expect(root(feedXml(site, [])).querySelector('id')?.textContent).toBe('tag:shop.example.com,2026-03-04:site-7');
    expect(root(feedXml({ ...site, domain: 'not a domain' }, [])).querySelector('id')?.textContent).toBe(
      'tag:site-7.invalid,2026-03-04:site-7',
    );
  });

  it('names its language from the site’s locale (BCP 47)', () => {
    expect(root(feedXml(site, [])).getAttribute('xml:lang')).toBe('en-GB');
    expect(languageTags('US/en').lang).toBe('en-US');
    expect(languageTags('WW/fr').lang).toBe('fr');
    // A locale from before locales were checked: English, as pages were.
    expect(languageTags('english').lang).toBe('en');
    expect(languageTags('en/US').lang).toBe('en');
  });

  it('works each locale’s tags out once, and again only after a few hundred others', () => {
    const check = jest.spyOn(Locale, 'safeParse');
    const first = languageTags('DE/de');
    expect(languageTags('DE/de')).toBe(first);
    expect(first).toEqual({ lang: 'de-DE', ogLocale: 'de_DE' });
    expect(check).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 256; i++) expect(languageTags(`locale ${i}`)).toEqual({ lang: 'en', ogLocale: null });
    expect(languageTags('DE/de')).toEqual(first);
    expect(check).toHaveBeenCalledTimes(258);
    check.mockRestore();
  });
});
