import type { ListedPage } from '@cm/contract';
import { escapeHtml } from './blocks';
import {
  breadcrumbList,
  documentHtml,
  homeCrumb,
  publisherOf,
  questionsCrumb,
  type Crumb,
  type RenderOptions,
} from './render';
import { languageTags } from './language-tags';
import { homeUrl, pageUrl } from './site-urls';

/*
 * The site's listing pages (docs/api.md#listing-pages): its home (the latest articles and questions), a
 * category's articles, a topic's questions and the index of questions. Each lists live pages as cards,
 * newest first publish first, a page at a time with a link to the older ones; each is its own canonical
 * URL (a listing's later pages are pages of their own, not copies of the first).
 */

export type ListingKind = 'home' | 'questions' | 'category' | 'topic';

export interface Listing {
  kind: ListingKind;
  /** The category's or topic's name (null for the home and the index of questions). */
  name: string | null;
  pages: readonly ListedPage[];
  /** This page of the listing (its canonical URL); the next, older one; the first and the newer one, when this is not the first. */
  url: string;
  next: string | null;
  first: string | null;
  newer: string | null;
}

const KIND_LABELS = { article: 'Article', question: 'Question' } as const;

function headingOf(listing: Listing, siteName: string): { title: string; intro: string } {
  switch (listing.kind) {
    case 'home':
      return { title: siteName, intro: `The latest articles and questions of ${siteName}.` };
    case 'questions':
      return { title: 'Questions', intro: `Questions answered on ${siteName}, the latest first.` };
    case 'category':
      return { title: listing.name ?? '', intro: `Articles in ${listing.name ?? ''}, the latest first.` };
    case 'topic':
      return { title: listing.name ?? '', intro: `Questions about ${listing.name ?? ''}, the latest first.` };
  }
}

function entry(root: string, page: ListedPage): string {
  const url = escapeHtml(pageUrl(root, page.type, page.slug));
  const date = page.created_at.slice(0, 10);
  const text = page.card_text ? `\n<p>${escapeHtml(page.card_text)}</p>` : '';
  return [
    '<li class="entry">',
    `<p class="meta">${KIND_LABELS[page.type]} · <time datetime="${escapeHtml(page.created_at)}">${escapeHtml(date)}</time></p>`,
    `<h2><a href="${url}">${escapeHtml(page.title)}</a></h2>${text}`,
    '</li>',
  ].join('\n');
}

/**
 * What sets a later page apart from the others (its title's and description's end): the cards it shows
 * from and to, which stay while newer pages are published (core/listing-breaks.ts); each card is on one page.
 */
function spanOf(pages: readonly ListedPage[]): { title: string; description: string } {
  const [newest, oldest] = [pages[0], pages.at(-1)];
  if (newest === undefined || oldest === undefined) return { title: 'nothing older', description: 'Nothing older.' };
  const range = newest === oldest ? `“${newest.title}”` : `“${newest.title}” to “${oldest.title}”`;
  return { title: `from “${newest.title}”`, description: `This page: ${range}.` };
}

export function renderListing(listing: Listing, options: Pick<RenderOptions, 'site'>): string {
  const { root, name: siteName } = options.site;
  const { title, intro } = headingOf(listing, siteName);
  const older = listing.first !== null;
  const crumbs: Crumb[] =
    listing.kind === 'home'
      ? []
      : [
          homeCrumb(root),
          ...(listing.kind === 'topic' ? [questionsCrumb(root)] : []),
          { name: title, url: listing.url },
        ];
  const entries =
    listing.pages.length > 0
      ? `<ol class="listing">\n${listing.pages.map((page) => entry(root, page)).join('\n')}\n</ol>`
      : `<p>${older ? 'Nothing older.' : 'Nothing is published here yet.'}</p>`;
  const pager = [
    listing.newer ? `<a rel="prev" href="${escapeHtml(listing.newer)}">Newer</a>` : '',
    listing.next ? `<a rel="next" href="${escapeHtml(listing.next)}">Older</a>` : '',
    listing.first && listing.first !== listing.newer ? `<a href="${escapeHtml(listing.first)}">Latest</a>` : '',
  ].filter(Boolean);
  const main = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="intro">${escapeHtml(intro)}</p>`,
    entries,
    pager.length > 0 ? `<nav class="pager" aria-label="More pages">${pager.join('\n')}</nav>` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const span = older ? spanOf(listing.pages) : null;
  const fullTitle = `${listing.kind === 'home' ? title : `${title} · ${siteName}`}${span ? ` — ${span.title}` : ''}`;
  const collection = {
    '@context': 'https://schema.org',
    '@type': 'CollectionPage',
    name: fullTitle,
    url: listing.url,
    publisher: publisherOf(options),
    mainEntity: {
      '@type': 'ItemList',
      itemListElement: listing.pages.map((page, i) => ({
        '@type': 'ListItem',
        position: i + 1,
        url: pageUrl(root, page.type, page.slug),
        name: page.title,
      })),
    },
  };
  // The home names the site (as search results show it, with the site's name): its first page only.
  const website =
    listing.kind === 'home' && !older
      ? [
          {
            '@context': 'https://schema.org',
            '@type': 'WebSite',
            name: siteName,
            url: homeUrl(root),
            inLanguage: languageTags(options.site.locale).lang,
            publisher: publisherOf(options),
          },
        ]
      : [];
  return documentHtml(
    {
      title: fullTitle,
      description: span ? `${intro} ${span.description}` : intro,
      canonical: listing.url,
      noindex: false,
      image: null,
      ogType: 'website',
      publishedAt: null,
      modifiedAt: null,
      next: listing.next,
      prev: listing.newer,
      // Google's HTML tag method reads the home page, its first.
      verification: listing.kind === 'home' && !older ? (options.site.verification ?? null) : null,
      jsonLd: [...website, collection, ...(crumbs.length > 1 ? [breadcrumbList(crumbs)] : [])],
    },
    options,
    crumbs,
    main,
  );
}
