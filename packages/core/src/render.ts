import {
  CALLOUT_TONES,
  isJsonObject,
  type ArticleRecord,
  type Block,
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
import { INLINE_MARKUP } from './markup';
import { blockLinkTargets, blockTexts, itemsOf, textOf } from './pages';
import { allowedImageUrl, allowedUrl } from './urls';

/*
 * Visitor pages, rendered from the blocks, never from `copy`. Rules as in Portable Text's to-html:
 * every text is escaped, URLs render only with allowed schemes, unknown types render nothing and are
 * never echoed. A block of a known type is rendered from whatever of its shape is usable: a field that
 * is not a text renders nothing, and a block without the field it is made of renders nothing at all.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** JSON inside `<script>`: nothing in it can close the element or start markup. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export interface RenderOptions {
  /** Absolute URL of this page (the canonical URL when the page names none). */
  pageUrl: string;
  /** The visitor URL of a linked page when readers can reach it, else null (the link renders as text). */
  linkTarget: (pageId: string) => string | null;
}

/** h1–h6 from a heading's `level`: a number (or numeric string) is rounded and clamped, anything else is h2. */
function headingLevel(level: unknown): number {
  const n = typeof level === 'string' && level.trim() !== '' ? Number(level) : level;
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(6, Math.max(1, Math.round(n))) : 2;
}

/**
 * Stands where a citation of an unknown source was, until the space before it is dropped too. It cannot
 * come from a page: every text is escaped, so no `<` of a page's own reaches the output.
 */
const DROPPED_CITATION = '<!--dropped-citation-->';
const DROPPED_CITATION_WITH_SPACE = new RegExp(`[ \\t]*${DROPPED_CITATION}`, 'g');

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

/** List styles that render as a numbered list: the spec's `number`, and `ordered` as clients also send it. */
const ORDERED_STYLES: ReadonlySet<unknown> = new Set(['number', 'ordered']);

const isCalloutTone = (tone: unknown): tone is (typeof CALLOUT_TONES)[number] => CALLOUT_TONES.some((t) => t === tone);

class Renderer {
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
  private citation(id: string): string | null {
    if (this.inArticle) return null;
    const n = this.sourceNumber.get(id);
    return n === undefined ? null : `<sup class="citation"><a href="#source-${n}">[${n}]</a></sup>`;
  }

  /** `html` as a link to `target`, or as it is when the target is a page readers cannot reach or a URL not allowed. */
  private link(html: string, target: string): string {
    const url = target.startsWith('page:') ? this.options.linkTarget(target.slice(5)) : allowedUrl(target);
    return url ? `<a href="${escapeHtml(url)}">${html}</a>` : html;
  }

  /**
   * A run of Portable Text blocks, through Portable Text's own renderer (lists grouped from `listItem`
   * and `level`), with this renderer's rules: texts with their inline markup, links through the URL
   * allow-list and relink, citations by the spec's rules, and nothing for an unknown type.
   */
  private portableText(run: readonly Block[]): string {
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
          const id = isInline ? textOf(value.id) : undefined;
          return (id === undefined ? null : this.citation(id)) ?? DROPPED_CITATION;
        },
      },
      unknownMark: ({ children }) => children,
      unknownType: () => '',
    };
    return toHTML(run.map(portableTextBlock), { components, onMissingComponent: false }).replace(
      DROPPED_CITATION_WITH_SPACE,
      '',
    );
  }

  /** A text with its inline markup: every literal `[src-<n>]` follows the citation rules, in any text. */
  private text(text: string): string {
    let out = '';
    let last = 0;
    for (const m of text.matchAll(INLINE_MARKUP)) {
      out += escapeHtml(text.slice(last, m.index));
      last = m.index + m[0].length;
      // A link has groups 1 and 2, a citation 3 and 4 (each of 1 and 3 may be empty, never missing).
      const [, linkText = '', target, space = '', sourceId] = m;
      if (target !== undefined) out += this.link(escapeHtml(linkText), target);
      else if (sourceId !== undefined) {
        const cited = this.citation(sourceId);
        if (cited) out += escapeHtml(space) + cited;
      }
    }
    return out + escapeHtml(text.slice(last));
  }

  /** A field rendered as text, or '' when it holds none (an object is never echoed). */
  private field(value: unknown): string {
    const text = textOf(value);
    return text === undefined ? '' : this.text(text);
  }

  /** Inline nodes after `out`: a dropped citation also drops the space before it, wherever that came from. */
  private inline(nodes: readonly unknown[], out: string): string {
    for (const node of nodes) {
      if (!isJsonObject(node)) continue;
      if (node._type === 'span') out += this.field(node.text);
      else if (node._type === 'sourceCitation') {
        const id = textOf(node.id);
        const cited = id === undefined ? null : this.citation(id);
        out = cited ? out + cited : out.replace(/[ \t]+$/, '');
      }
    }
    return out;
  }

  block(block: Block): string {
    switch (block._type) {
      case 'heading': {
        if (textOf(block.text) === undefined) return '';
        const level = headingLevel(block.level);
        return `<h${level}>${this.field(block.text)}</h${level}>`;
      }
      case 'paragraph': {
        const children = Array.isArray(block.children) ? block.children : null;
        if (textOf(block.text) === undefined && !children) return '';
        return `<p>${this.inline(children ?? [], this.field(block.text))}</p>`;
      }
      case 'statBar': {
        if (!Array.isArray(block.stats)) return '';
        const stats = block.stats
          .filter(isJsonObject)
          .map((s) => `<div class="stat"><dt>${this.field(s.label)}</dt><dd>${this.field(s.value)}</dd></div>`);
        return `<dl class="stat-bar">${stats.join('')}</dl>`;
      }
      case 'list': {
        if (!Array.isArray(block.items)) return '';
        const tag = ORDERED_STYLES.has(block.style) ? 'ol' : 'ul';
        const items = block.items.flatMap((item) => {
          // An item sent as an object renders its `text`, by the same rules as an item sent as a string.
          const text = textOf(isJsonObject(item) ? item.text : item);
          return text === undefined ? [] : [`<li>${this.text(text)}</li>`];
        });
        return `<${tag}>${items.join('')}</${tag}>`;
      }
      case 'quote': {
        if (textOf(block.text) === undefined) return '';
        const cite = textOf(block.cite) ? `<footer><cite>${this.field(block.cite)}</cite></footer>` : '';
        return `<blockquote><p>${this.field(block.text)}</p>${cite}</blockquote>`;
      }
      case 'image': {
        const src = allowedImageUrl(typeof block.url === 'string' ? block.url : null);
        if (!src) return '';
        const caption = textOf(block.caption) ? `<figcaption>${this.field(block.caption)}</figcaption>` : '';
        return `<figure><img src="${escapeHtml(src)}" alt="${escapeHtml(textOf(block.alt) ?? '')}" loading="lazy">${caption}</figure>`;
      }
      case 'callout': {
        if (textOf(block.text) === undefined) return '';
        const tone = isCalloutTone(block.tone) ? ` callout-${block.tone}` : '';
        return `<aside class="callout${tone}"><p>${this.field(block.text)}</p></aside>`;
      }
      case 'table': {
        if (!Array.isArray(block.header) && !Array.isArray(block.rows)) return '';
        const head = itemsOf(block.header)
          .map((cell) => `<th>${this.field(cell)}</th>`)
          .join('');
        const rows = itemsOf(block.rows)
          .filter(Array.isArray)
          .map((row) => `<tr>${row.map((cell) => `<td>${this.field(cell)}</td>`).join('')}</tr>`)
          .join('');
        return `<table>${head ? `<thead><tr>${head}</tr></thead>` : ''}<tbody>${rows}</tbody></table>`;
      }
      default:
        return '';
    }
  }

  /** Blocks in order; consecutive Portable Text blocks render together, so their list items group. */
  blocks(blocks: readonly Block[]): string {
    const parts: (Block | Block[])[] = [];
    for (const block of blocks) {
      const last = parts.at(-1);
      if (block._type !== 'block') parts.push(block);
      else if (Array.isArray(last)) last.push(block);
      else parts.push([block]);
    }
    return parts.map((part) => (Array.isArray(part) ? this.portableText(part) : this.block(part))).join('\n');
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
    return `<section class="sources"><h2>Sources</h2><ol>${items}</ol></section>`;
  }
}

/** A span's text among a block's texts: the spans of a block are one run of text. */
const SPAN_TEXT = /\.children\[\d+\]\.text$/;

/**
 * Plain text of blocks, markup reduced to its words, for structured data. A block's spans join as written
 * (a citation between "fits" and "." renders no text, and leaves no " ."); its other texts and the blocks
 * are apart.
 */
function plainText(blocks: readonly Block[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    let spans = '';
    for (const visit of blockTexts(block, '')) {
      const text = visit.text.replace(INLINE_MARKUP, (_m, linkText?: string) => linkText ?? '');
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

function documentHtml(
  head: { title: string; description: string | null; canonical: string; noindex: boolean; jsonLd: object },
  main: string,
): string {
  const meta = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(head.title)}</title>`,
    head.description !== null ? `<meta name="description" content="${escapeHtml(head.description)}">` : '',
    `<link rel="canonical" href="${escapeHtml(head.canonical)}">`,
    head.noindex ? '<meta name="robots" content="noindex">' : '',
    `<script type="application/ld+json">${scriptJson(head.jsonLd)}</script>`,
  ].filter(Boolean);
  return `<!doctype html>\n<html lang="en">\n<head>\n${meta.join('\n')}\n</head>\n<body>\n<main>\n${main}\n</main>\n</body>\n</html>\n`;
}

const withoutNulls = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export function renderArticle(page: ArticleRecord, options: RenderOptions): string {
  const r = new Renderer(options, [], true);
  const canonical = allowedUrl(page.canonical_url) ?? options.pageUrl;
  const cover = allowedImageUrl(page.cover_image);
  const main = [
    '<article>',
    `<header><h1>${escapeHtml(page.title)}</h1>${cover ? `<img class="cover" src="${escapeHtml(cover)}" alt="">` : ''}</header>`,
    r.blocks(page.body),
    '</article>',
  ].join('\n');
  const jsonLd = withoutNulls({
    '@context': 'https://schema.org',
    '@type': page.schema_type,
    headline: page.title,
    description: page.meta_description,
    image: cover,
    datePublished: page.created_at,
    dateModified: modifiedAt(page.created_at, page.updated_at),
    url: canonical,
    mainEntityOfPage: canonical,
  });
  return documentHtml(
    { title: page.meta_title, description: page.meta_description, canonical, noindex: page.noindex, jsonLd },
    main,
  );
}

export function renderQuestion(page: QuestionRecord, options: RenderOptions): string {
  const r = new Renderer(options, page.sources, false);
  const community = page.community_answers
    .map(
      (a) =>
        `<section class="community-answer"><h3>${escapeHtml(a.author)}</h3>\n${new Renderer(options, [], false).blocks(a.blocks)}</section>`,
    )
    .join('\n');
  const main = [
    '<article>',
    `<header><h1>${escapeHtml(page.question)}</h1></header>`,
    page.summary ? `<p class="summary">${escapeHtml(page.summary)}</p>` : '',
    `<section class="answer">\n${r.blocks(page.answer)}\n</section>`,
    r.sourceList(),
    community ? `<section class="community-answers"><h2>More answers</h2>\n${community}</section>` : '',
    '</article>',
  ]
    .filter(Boolean)
    .join('\n');
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'Question',
    name: page.question,
    text: page.question,
    dateCreated: page.created_at,
    dateModified: modifiedAt(page.created_at, page.updated_at),
    url: options.pageUrl,
    answerCount: 1 + page.community_answers.length,
    acceptedAnswer: {
      '@type': 'Answer',
      text: plainText(page.answer),
      dateModified: modifiedAt(page.created_at, page.updated_at),
    },
  };
  return documentHtml(
    { title: page.meta_title, description: page.meta_description, canonical: options.pageUrl, noindex: false, jsonLd },
    main,
  );
}

export function renderPage(page: PageRecord, options: RenderOptions): string {
  return page.type === 'article' ? renderArticle(page, options) : renderQuestion(page, options);
}

/** The page ids a page's blocks link to: the visitor handler looks up which of them are live. */
export const renderedLinkTargets = blockLinkTargets;

/** What a reader is told when a page is not there (404) or was removed (410). */
export const UNAVAILABLE = {
  404: { code: 'not_found', title: 'Not found', message: 'This page does not exist.' },
  410: { code: 'gone', title: 'Gone', message: 'This page has been removed.' },
} as const;

/** The HTML of a 404 or 410 visitor page: no index, nothing of the page that is not there. */
export function renderUnavailable(status: keyof typeof UNAVAILABLE): string {
  const { title, message } = UNAVAILABLE[status];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="robots" content="noindex"></head><body><h1>${title}</h1><p>${escapeHtml(message)}</p></body></html>\n`;
}
