import {
  isJsonObject,
  type ArticleRecord,
  type Block,
  type CommunityAnswer,
  type PageRecord,
  type QuestionRecord,
  type Source,
} from '@cm/contract';
import {
  toHTML,
  type PortableTextComponents,
  type PortableTextMarkComponentOptions,
  type PortableTextTypeComponentOptions,
} from '@portabletext/to-html';
import { blockType, escapeHtml, itemsOf, textOf, type BlockHtml } from './blocks';
import { citeAfter } from './citation';
import { languageTags } from './language-tags';
import { INLINE_MARKUP, markupWords } from './markup';
import { blockLinkTargets, blockTexts } from './pages';
import { sectionsOf, topicSections } from './sections';
import { feedUrl, homeUrl, questionsUrl, sectionUrl } from './site-urls';
import { COVER_BOX, THEME_CSS } from './theme';
import { allowedImageUrl, allowedUrl } from './urls';

/*
 * Visitor pages, rendered from the blocks, never from `copy`. Rules as in Portable Text's to-html:
 * every text is escaped, URLs render only with allowed schemes, unknown types render nothing and are
 * never echoed. A block of a known type is rendered from whatever of its shape is usable: a field that
 * is not a text renders nothing, and a block without the field it is made of renders nothing at all.
 * Every page has the site's header, breadcrumbs and footer, the theme's one inline stylesheet, Open
 * Graph and Twitter card tags, and schema.org JSON-LD (docs/api.md#visitor-pages).
 */

/** JSON inside `<script>`: nothing in it can close the element or start markup. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A page of the site that another page links to, while readers can reach it. */
export interface LinkedPage {
  url: string;
  title: string;
}

/** The site a page is on, as its pages show it. */
export interface PageSite {
  /** Heads every page. */
  name: string;
  /** Its root URL: its home is there, and starts the breadcrumbs. */
  root: string;
  /** `<COUNTRY>/<lang>` (`WW/en`): the pages' language and Open Graph locale (languageTags). */
  locale: string;
  /** The icon the site's host serves (siteIconUrl). */
  icon: string;
  /** Google's verification token of the site's Search Console property: its home page carries the meta tag. */
  verification?: string;
}

export interface RenderOptions {
  /** Absolute URL of this page (the canonical URL when the page names none). */
  pageUrl: string;
  site: PageSite;
  /** A linked page when readers can reach it, else null: a link to it renders as text, a related card not at all. */
  linkTarget: (pageId: string) => LinkedPage | null;
}

/**
 * Stands where a citation of an unknown source was, until the space before it is dropped too. It cannot
 * come from a page: every text is escaped, so no `<` of a page's own reaches the output.
 */
const DROPPED_CITATION = '<!--dropped-citation-->';

/** Deepest list nesting rendered: a deeper `level` renders at this one. */
const MAX_LIST_LEVEL = 10;

/**
 * A Portable Text block as sent, made safe for the renderer: children that are objects with a `_type`
 * (the library's own `@`-types are not a page's), spans with a text and string marks, `markDefs` with
 * string keys, and `listItem`/`level` only when they are a string and a positive integer.
 */
function portableTextBlock(block: Block): Block {
  const children = itemsOf(block.children).flatMap((child) => {
    if (!isJsonObject(child) || typeof child._type !== 'string' || child._type === '' || child._type.startsWith('@'))
      return [];
    if (child._type !== 'span') return [{ ...child, _type: child._type }];
    const marks = itemsOf(child.marks).filter((mark): mark is string => typeof mark === 'string');
    return [{ _type: 'span', text: textOf(child.text) ?? '', marks }];
  });
  const markDefs = itemsOf(block.markDefs).flatMap((def) =>
    isJsonObject(def) && typeof def._key === 'string' && typeof def._type === 'string'
      ? [{ ...def, _key: def._key, _type: def._type }]
      : [],
  );
  const level =
    typeof block.level === 'number' && Number.isInteger(block.level) && block.level >= 1
      ? Math.min(block.level, MAX_LIST_LEVEL)
      : undefined;
  return {
    _type: 'block',
    style: typeof block.style === 'string' ? block.style : 'normal',
    children,
    markDefs,
    ...(typeof block.listItem === 'string'
      ? { listItem: block.listItem, ...(level === undefined ? {} : { level }) }
      : {}),
  };
}

class Renderer implements BlockHtml {
  private readonly sourceNumber = new Map<string, number>();

  constructor(
    private readonly options: RenderOptions,
    private readonly sources: readonly Source[],
    private readonly inArticle: boolean,
  ) {
    sources.forEach((source, i) => {
      // A source without an id cannot be cited; it is still listed.
      if (source.id && !this.sourceNumber.has(source.id)) this.sourceNumber.set(source.id, i + 1);
    });
  }

  /** A citation of a known source as a numbered link, or null (then it is dropped with the space before it). */
  private citation(id: string | undefined): string | null {
    if (id === undefined || this.inArticle) return null;
    const n = this.sourceNumber.get(id);
    return n === undefined ? null : `<sup class="citation"><a href="#source-${n}">[${n}]</a></sup>`;
  }

  /** `html` as a link to `target`, or as it is when the target is a page readers cannot reach or a URL not allowed. */
  private link(html: string, target: string): string {
    const url = target.startsWith('page:')
      ? (this.options.linkTarget(target.slice(5))?.url ?? null)
      : allowedUrl(target);
    return url ? `<a href="${escapeHtml(url)}">${html}</a>` : html;
  }

  /**
   * A run of Portable Text blocks, through Portable Text's own renderer (lists grouped from `listItem`
   * and `level`), with this renderer's rules: texts with their inline markup, links through the URL
   * allow-list and relink, citations by the spec's rules, and nothing for an unknown type.
   */
  portableText(run: readonly Block[]): string {
    const components: PortableTextComponents = {
      escapeHTML: (text) => this.text(text),
      hardBreak: () => '<br>',
      marks: {
        link: ({ children, value }: PortableTextMarkComponentOptions<Block>) => {
          const href = value?.href;
          return typeof href === 'string' ? this.link(children, href) : children;
        },
      },
      types: {
        sourceCitation: ({ value, isInline }: PortableTextTypeComponentOptions<Block>) => {
          // The text before it is not in view here: the rule applies once the run is rendered.
          return this.citation(isInline ? textOf(value.id) : undefined) ?? DROPPED_CITATION;
        },
      },
      unknownMark: ({ children }) => children,
      unknownType: () => '',
    };
    return toHTML(run.map(portableTextBlock), { components, onMissingComponent: false })
      .split(DROPPED_CITATION)
      .reduce((before, after) => citeAfter(before, null) + after);
  }

  /** A text with its inline markup: every literal `[src-<n>]` follows the citation rules, in any text. */
  text(text: string): string {
    let out = '';
    let last = 0;
    for (const m of text.matchAll(INLINE_MARKUP)) {
      const before = escapeHtml(text.slice(last, m.index));
      last = m.index + m[0].length;
      // A link has groups 1 and 2, a citation 3 and 4 (each of 1 and 3 may be empty, never missing): the
      // spaces before a citation are all in group 3, so `before` ends in none.
      const [, linkText = '', target, space = '', sourceId] = m;
      out +=
        target === undefined
          ? citeAfter(before + space, this.citation(sourceId))
          : before + this.link(escapeHtml(linkText), target);
    }
    return out + escapeHtml(text.slice(last));
  }

  /** A field rendered as text, or '' when it has none (an object is never echoed). */
  field(value: unknown): string {
    const text = textOf(value);
    return text === undefined ? '' : this.text(text);
  }

  /** Inline nodes after `out`: a dropped citation also drops the space before it, wherever that came from. */
  inline(nodes: readonly unknown[], out: string): string {
    for (const node of nodes) {
      if (!isJsonObject(node)) continue;
      if (node._type === 'span') out += this.field(node.text);
      else if (node._type === 'sourceCitation') out = citeAfter(out, this.citation(textOf(node.id)));
    }
    return out;
  }

  /**
   * Blocks in order, each by its entry in the table of block types (nothing for an unknown type);
   * consecutive Portable Text blocks render together, so their list items group. `atTop`: the first
   * block is in view when the page opens.
   */
  blocks(blocks: readonly Block[], atTop = false): string {
    const parts: (Block | Block[])[] = [];
    for (const block of blocks) {
      const last = parts.at(-1);
      if (block._type !== 'block') parts.push(block);
      else if (Array.isArray(last)) last.push(block);
      else parts.push([block]);
    }
    return parts
      .map((part, i) =>
        Array.isArray(part) ? this.portableText(part) : (blockType(part)?.render(part, this, atTop && i === 0) ?? ''),
      )
      .join('\n');
  }

  sourceList(): string {
    if (this.inArticle || this.sources.length === 0) return '';
    const items = this.sources
      .map((source, i) => {
        // What is there: the title, else the URL, else the id; a link only to a safe URL; a date when sent.
        const url = allowedUrl(source.url);
        const title = escapeHtml(source.title || source.url || source.id || `Source ${i + 1}`);
        const label = url ? `<a href="${escapeHtml(url)}" rel="nofollow noopener">${title}</a>` : title;
        const accessed = source.accessed_at
          ? ` <span class="accessed">accessed ${escapeHtml(source.accessed_at)}</span>`
          : '';
        return `<li id="source-${i + 1}">${label}${accessed}</li>`;
      })
      .join('');
    return part('sources', 'Sources', `<ol>${items}</ol>`);
  }
}

/** A span's text among a block's texts: the spans of a block are one run of text. */
const SPAN_TEXT = /\.children\[\d+\]\.text$/;

/**
 * Plain text of blocks, markup reduced to its words, for structured data. A block's spans join as written
 * (a citation between "fits" and "." renders no text, and leaves no " ."); its other texts and the blocks
 * are apart.
 */
export function plainText(blocks: readonly Block[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    let spans = '';
    for (const visit of blockTexts(block, '')) {
      const text = markupWords(visit.text);
      if (SPAN_TEXT.test(visit.path)) spans += text;
      else parts.push(text);
    }
    parts.push(spans);
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** When a page was last modified, never before it was first published: an editor's older `updated_at` is the later date's. */
const modifiedAt = (publishedAt: string, updatedAt: string): string =>
  Date.parse(updatedAt) < Date.parse(publishedAt) ? publishedAt : updatedAt;

/** A section of a question page, set apart from the others under its own heading. */
const part = (name: string, heading: string, html: string): string =>
  `<section class="part ${name}" aria-labelledby="${name}-title">\n<h2 id="${name}-title">${heading}</h2>\n${html}\n</section>`;

/** About 200 characters of a text, cut at a word, for link previews. */
export function preview(text: string): string {
  if (text.length <= 200) return text;
  const cut = text.slice(0, 200);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 120)).trimEnd()}…`;
}

/**
 * The first image of the blocks readers are shown, for link previews of a page without a cover: with its
 * alt text (else `title`: a preview's image needs one) and its size when the block gives one.
 */
function firstImage(blocks: readonly Block[], title: string): PreviewImage | null {
  for (const block of blocks) {
    const image = blockType(block)?.image?.(block);
    const url = allowedImageUrl(image?.url);
    if (image && url) return { url, alt: image.alt || title, width: image.width, height: image.height };
  }
  return null;
}

const dateOf = (iso: string): string => iso.slice(0, 10);

/** When the page was first published and, on a later day, last updated. */
function dates(publishedAt: string, updatedAt: string): string {
  const published = `Published <time datetime="${escapeHtml(publishedAt)}">${escapeHtml(dateOf(publishedAt))}</time>`;
  const updated =
    dateOf(updatedAt) > dateOf(publishedAt)
      ? ` · Updated <time datetime="${escapeHtml(updatedAt)}">${escapeHtml(dateOf(updatedAt))}</time>`
      : '';
  return `<p class="meta">${published}${updated}</p>`;
}

export interface Crumb {
  name: string;
  url: string;
}

/** Home › category › page: the category only when the page has one that names a page. */
/** Home › the page's section › the page: an article's category (when it names a page), a question's index. */
function breadcrumbs(options: RenderOptions, section: Crumb | null, name: string): Crumb[] {
  return [homeCrumb(options.site.root), ...(section ? [section] : []), { name, url: options.pageUrl }];
}

export const homeCrumb = (root: string): Crumb => ({ name: 'Home', url: homeUrl(root) });

/** An article's category as a crumb, when its name has a letter or digit to name its page by. */
function categoryCrumb(root: string, category: string | null): Crumb | null {
  const [section] = sectionsOf('category', category === null ? [] : [category]);
  return section ? { name: section.name, url: sectionUrl(root, section) } : null;
}

/**
 * A question's topics, each a link to its topic page (rel=tag: a tag of this page), as an article's
 * category is a crumb: only the topics whose pages list the question.
 */
function topicLinks(root: string, topics: readonly string[]): string {
  const sections = topicSections(topics);
  if (sections.length === 0) return '';
  const links = sections.map(
    (section) => `<a href="${escapeHtml(sectionUrl(root, section))}" rel="tag">${escapeHtml(section.name)}</a>`,
  );
  return `<p class="meta topics">${sections.length === 1 ? 'Topic' : 'Topics'}: ${links.join(', ')}</p>`;
}

export const questionsCrumb = (root: string): Crumb => ({ name: 'Questions', url: questionsUrl(root) });

export function breadcrumbNav(crumbs: readonly Crumb[]): string {
  const items = crumbs.map((crumb, i) =>
    i === crumbs.length - 1
      ? `<li aria-current="page">${escapeHtml(crumb.name)}</li>`
      : `<li><a href="${escapeHtml(crumb.url)}">${escapeHtml(crumb.name)}</a></li>`,
  );
  return `<nav class="crumbs" aria-label="Breadcrumb"><ol>${items.join('')}</ol></nav>`;
}

export const breadcrumbList = (crumbs: readonly Crumb[]) => ({
  '@context': 'https://schema.org',
  '@type': 'BreadcrumbList',
  itemListElement: crumbs.map((crumb, i) => ({
    '@type': 'ListItem',
    position: i + 1,
    name: crumb.name,
    item: crumb.url,
  })),
});

/** The site as the publisher (and author) of its pages. */
export const publisherOf = (options: Pick<RenderOptions, 'site'>) => ({
  '@type': 'Organization',
  name: options.site.name,
  url: homeUrl(options.site.root),
});

/** The most related pages a page shows as cards: a page may name thousands, and each card is a read. */
export const RELATED_CARDS_MAX = 12;

/**
 * The related pages a page shows, as relink leaves them (the record has only the live ones): its
 * related articles, then its related questions, the first RELATED_CARDS_MAX. The visitor page reads
 * their titles, and relatedCards renders them.
 */
export function relatedShown(page: {
  related_article_ids: readonly string[];
  related_question_ids: readonly string[];
}) {
  const articles = page.related_article_ids.slice(0, RELATED_CARDS_MAX);
  const questions = page.related_question_ids.slice(0, RELATED_CARDS_MAX - articles.length);
  return { articles, questions };
}

/** The related pages readers can reach, as cards with their titles (relink took the others out already). */
function relatedCards(options: RenderOptions, page: Parameters<typeof relatedShown>[0]): string {
  const { articles: articleIds, questions: questionIds } = relatedShown(page);
  const cards = (ids: readonly string[], kind: string) =>
    ids.flatMap((id) => {
      const target = options.linkTarget(id);
      return target
        ? [
            `<li><a class="card" href="${escapeHtml(target.url)}"><span class="card-kind">${kind}</span><span class="card-title">${escapeHtml(target.title)}</span></a></li>`,
          ]
        : [];
    });
  const items = [...cards(articleIds, 'Article'), ...cards(questionIds, 'Question')];
  if (items.length === 0) return '';
  return `<section class="related" aria-labelledby="related-title">\n<h2 id="related-title">Related</h2>\n<ul class="cards">${items.join('')}</ul>\n</section>`;
}

/** The image link previews show: its URL (allowed), what it shows, and its size when known. */
export interface PreviewImage {
  url: string;
  alt: string;
  width: number | null;
  height: number | null;
}

export interface Head {
  title: string;
  /**
   * The description search results and link previews show: `meta_description`, else the page's own
   * first words (a page without one fails Lighthouse's SEO audit, and a crawler makes its own up).
   */
  description: string;
  canonical: string;
  noindex: boolean;
  image: PreviewImage | null;
  /** Open Graph's `article:section` and `article:tag`: an article's category, a question's topics. */
  section?: string | null;
  tags?: readonly string[];
  /** Open Graph's type: a page of content (`article`), or a listing (`website`). */
  ogType: 'article' | 'website';
  /** An article's or question's first publish and last change; a listing has neither. */
  publishedAt: string | null;
  modifiedAt: string | null;
  /** A listing's older and newer pages. */
  next?: string | null;
  prev?: string | null;
  /** Google's site verification token (docs/api/search-console.md#verification): the home page's. */
  verification?: string | null;
  jsonLd: object[];
}

function headHtml(head: Head, options: Pick<RenderOptions, 'site'>, ogLocale: string | null): string {
  const meta = (attribute: 'name' | 'property', key: string, value: string | null) =>
    value === null ? '' : `<meta ${attribute}="${key}" content="${escapeHtml(value)}">`;
  const { image } = head;
  return [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(head.title)}</title>`,
    meta('name', 'description', head.description),
    `<link rel="canonical" href="${escapeHtml(head.canonical)}">`,
    iconLink(options.site),
    head.prev ? `<link rel="prev" href="${escapeHtml(head.prev)}">` : '',
    head.next ? `<link rel="next" href="${escapeHtml(head.next)}">` : '',
    `<link rel="alternate" type="application/atom+xml" title="${escapeHtml(options.site.name)}" href="${escapeHtml(feedUrl(options.site.root))}">`,
    head.noindex ? '<meta name="robots" content="noindex">' : '',
    meta('name', 'google-site-verification', head.verification ?? null),
    meta('property', 'og:type', head.ogType),
    meta('property', 'og:title', head.title),
    meta('property', 'og:description', head.description),
    meta('property', 'og:url', head.canonical),
    meta('property', 'og:site_name', options.site.name),
    meta('property', 'og:locale', ogLocale),
    // An image's structured properties follow it (Open Graph: they describe the og:image before them).
    meta('property', 'og:image', image?.url ?? null),
    meta('property', 'og:image:width', image?.width?.toString() ?? null),
    meta('property', 'og:image:height', image?.height?.toString() ?? null),
    meta('property', 'og:image:alt', image?.alt ?? null),
    meta('property', 'article:published_time', head.publishedAt),
    meta('property', 'article:modified_time', head.modifiedAt),
    meta('property', 'article:section', head.section ?? null),
    ...(head.tags ?? []).map((tag) => meta('property', 'article:tag', tag)),
    meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', head.title),
    meta('name', 'twitter:description', head.description),
    meta('name', 'twitter:image', image?.url ?? null),
    meta('name', 'twitter:image:alt', image?.alt ?? null),
    `<style>${THEME_CSS}</style>`,
    ...head.jsonLd.map((data) => `<script type="application/ld+json">${scriptJson(data)}</script>`),
  ]
    .filter(Boolean)
    .join('\n');
}

/** The icon the site's host serves, linked from every page of it (the 404 and 410 pages too). */
const iconLink = (site: RenderOptions['site']): string =>
  `<link rel="icon" href="${escapeHtml(site.icon)}" type="image/svg+xml">`;

/** The site's header on every page of it, after the link that skips it: its name home, and its questions. */
const siteHeader = (site: RenderOptions['site']): string =>
  [
    '<a class="skip" href="#content">Skip to content</a>',
    `<header class="site"><div class="wrap"><a class="site-name" href="${escapeHtml(homeUrl(site.root))}">${escapeHtml(site.name)}</a><nav class="site-nav" aria-label="Site"><a href="${escapeHtml(questionsUrl(site.root))}">Questions</a></nav></div></header>`,
  ].join('\n');

/** The site's footer on every page of it: its name home, and its feed. */
const siteFooter = (site: RenderOptions['site']): string =>
  `<footer class="site"><div class="wrap"><a href="${escapeHtml(homeUrl(site.root))}">${escapeHtml(site.name)}</a> · <a href="${escapeHtml(feedUrl(site.root))}">Feed</a></div></footer>`;

/** The page: the site's header, breadcrumbs, the page's own content, and the site's footer. */
export function documentHtml(
  head: Head,
  options: Pick<RenderOptions, 'site'>,
  crumbs: readonly Crumb[],
  main: string,
): string {
  const { lang, ogLocale } = languageTags(options.site.locale);
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(lang)}">`,
    `<head>\n${headHtml(head, options, ogLocale)}\n</head>`,
    '<body>',
    siteHeader(options.site),
    '<div class="wrap">',
    crumbs.length > 0 ? breadcrumbNav(crumbs) : '',
    `<main id="content">\n${main}\n</main>`,
    '</div>',
    siteFooter(options.site),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const withoutNulls = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export function renderArticle(page: ArticleRecord, options: RenderOptions): string {
  const r = new Renderer(options, [], true);
  const canonical = allowedUrl(page.canonical_url) ?? options.pageUrl;
  const cover = allowedImageUrl(page.cover_image);
  const modified = modifiedAt(page.created_at, page.updated_at);
  const category = categoryCrumb(options.site.root, page.category);
  const crumbs = breadcrumbs(options, category, page.title);
  const main = [
    '<article>',
    `<header><h1>${escapeHtml(page.title)}</h1>${dates(page.created_at, modified)}</header>`,
    // The cover is in view when the page opens: it loads at once, first, into a box of a fixed shape.
    cover
      ? `<img class="cover" src="${escapeHtml(cover)}" alt="" width="${COVER_BOX.width}" height="${COVER_BOX.height}" fetchpriority="high">`
      : '',
    r.blocks(page.body, !cover),
    '</article>',
    relatedCards(options, page),
  ]
    .filter(Boolean)
    .join('\n');
  // A cover comes as a URL alone: what it shows is the page's title, and its size is not known.
  const image = cover ? { url: cover, alt: page.title, width: null, height: null } : firstImage(page.body, page.title);
  const publisher = publisherOf(options);
  const jsonLd = withoutNulls({
    '@context': 'https://schema.org',
    '@type': page.schema_type,
    headline: page.title,
    description: page.meta_description,
    image: image?.url,
    datePublished: page.created_at,
    dateModified: modified,
    url: canonical,
    mainEntityOfPage: canonical,
    author: publisher,
    publisher,
  });
  return documentHtml(
    {
      title: page.meta_title,
      description: page.meta_description ?? preview(plainText(page.body)),
      canonical,
      noindex: page.noindex,
      image,
      ogType: 'article',
      publishedAt: page.created_at,
      modifiedAt: modified,
      section: category?.name ?? null,
      jsonLd: [jsonLd, breadcrumbList(crumbs)],
    },
    options,
    crumbs,
    main,
  );
}

/** A community answer's anchor on the page. */
const answerAnchor = (answer: CommunityAnswer): string => `answer-${answer.answer_id}`;

/**
 * A question page's structured data. With community answers it is a QAPage: one question and the answers
 * its readers gave, the editor's as the site's accepted one. Without, it is an FAQPage of that one
 * question and its one answer, written by the site: search engines' QAPage guidelines are for questions
 * that users answer, not for a site's own answer (docs/api.md#visitor-pages).
 */
function questionJsonLd(page: QuestionRecord, options: RenderOptions, modified: string): object {
  const publisher = publisherOf(options);
  // Search engines want every Answer's votes; the service counts none, so each answer has 0.
  const votes = { upvoteCount: 0 };
  const accepted = {
    '@type': 'Answer',
    text: plainText(page.answer),
    ...votes,
    datePublished: page.created_at,
    dateModified: modified,
    url: `${options.pageUrl}#answer-title`,
    author: publisher,
  };
  const page_ = { '@context': 'https://schema.org', url: options.pageUrl, name: page.meta_title, publisher };
  if (page.community_answers.length === 0)
    return {
      ...page_,
      '@type': 'FAQPage',
      mainEntity: [{ '@type': 'Question', name: page.question, acceptedAnswer: accepted }],
    };
  return {
    ...page_,
    '@type': 'QAPage',
    mainEntity: {
      '@type': 'Question',
      name: page.question,
      text: page.question,
      answerCount: 1 + page.community_answers.length,
      datePublished: page.created_at,
      dateModified: modified,
      author: publisher,
      acceptedAnswer: accepted,
      suggestedAnswer: page.community_answers.map((a) => ({
        '@type': 'Answer',
        text: plainText(a.blocks),
        ...votes,
        datePublished: a.created_at,
        url: `${options.pageUrl}#${answerAnchor(a)}`,
        author: { '@type': 'Person', name: a.author },
      })),
    },
  };
}

export function renderQuestion(page: QuestionRecord, options: RenderOptions): string {
  const r = new Renderer(options, page.sources, false);
  const modified = modifiedAt(page.created_at, page.updated_at);
  const crumbs = breadcrumbs(options, questionsCrumb(options.site.root), page.question);
  const community = page.community_answers
    .map(
      (a) =>
        `<section class="community-answer" id="${escapeHtml(answerAnchor(a))}">\n<h3>${escapeHtml(a.author)}</h3>\n${dates(a.created_at, a.created_at)}\n${new Renderer(options, [], false).blocks(a.blocks)}\n</section>`,
    )
    .join('\n');
  const main = [
    '<article>',
    `<header><h1>${escapeHtml(page.question)}</h1>${dates(page.created_at, modified)}${topicLinks(options.site.root, page.topics)}</header>`,
    page.summary ? part('summary', 'In short', `<p>${escapeHtml(page.summary)}</p>`) : '',
    part('answer', 'Answer', r.blocks(page.answer, !page.summary)),
    r.sourceList(),
    community ? part('community-answers', 'Answers from readers', community) : '',
    '</article>',
    relatedCards(options, page),
  ]
    .filter(Boolean)
    .join('\n');
  return documentHtml(
    {
      title: page.meta_title,
      description: page.meta_description ?? preview(page.summary ?? plainText(page.answer)),
      canonical: options.pageUrl,
      noindex: false,
      image: firstImage(page.answer, page.question),
      ogType: 'article',
      publishedAt: page.created_at,
      modifiedAt: modified,
      tags: topicSections(page.topics).map((topic) => topic.name),
      jsonLd: [questionJsonLd(page, options, modified), breadcrumbList(crumbs)],
    },
    options,
    crumbs,
    main,
  );
}

export function renderPage(page: PageRecord, options: RenderOptions): string {
  return page.type === 'article' ? renderArticle(page, options) : renderQuestion(page, options);
}

/**
 * What a feed entry carries of a page (its `<content>`): an article's cover and body, a question's short
 * answer, answer and sources, rendered as on its page, without the page's frame.
 */
export function feedContent(page: PageRecord, options: RenderOptions): string {
  if (page.type === 'article') {
    const r = new Renderer(options, [], true);
    const cover = allowedImageUrl(page.cover_image);
    return [cover ? `<img src="${escapeHtml(cover)}" alt="">` : '', r.blocks(page.body)].filter(Boolean).join('\n');
  }
  const r = new Renderer(options, page.sources, false);
  return [page.summary ? `<p>${escapeHtml(page.summary)}</p>` : '', r.blocks(page.answer), r.sourceList()]
    .filter(Boolean)
    .join('\n');
}

/** The page ids a page's blocks link to: the visitor handler looks up which of them are live. */
export const renderedLinkTargets = blockLinkTargets;

/** What a reader is told when a page is not there (404) or was removed (410). */
export const UNAVAILABLE = {
  404: { code: 'not_found', title: 'Not found', message: 'This page does not exist.' },
  410: { code: 'gone', title: 'Gone', message: 'This page has been removed.' },
} as const;

/**
 * The HTML of a 404 or 410 visitor page: no index, nothing of the page that is not there. On a site, its
 * header, a link home and its footer, as its other pages have them; where no site is, the bare message.
 */
export function renderUnavailable(status: keyof typeof UNAVAILABLE, site: RenderOptions['site'] | null): string {
  const { title, message } = UNAVAILABLE[status];
  const head = (pageTitle: string, icon = '') =>
    `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${pageTitle}</title><meta name="robots" content="noindex">${icon}<style>${THEME_CSS}</style></head>`;
  if (site === null)
    return `<!doctype html>\n<html lang="en">${head(title)}<body><main class="wrap"><h1>${title}</h1><p>${escapeHtml(message)}</p></main></body></html>\n`;
  const name = escapeHtml(site.name);
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(languageTags(site.locale).lang)}">`,
    head(`${title} · ${name}`, iconLink(site)),
    '<body>',
    siteHeader(site),
    `<div class="wrap"><main id="content"><h1>${title}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(homeUrl(site.root))}">Go to the home page of ${name}</a></p></main></div>`,
    siteFooter(site),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
