import { CALLOUT_TONES, isJsonObject, isKnownBlockType, type Block, type KnownBlockType } from '@cm/contract';
import { allowedImageUrl } from './urls';
import { markupWords } from './markup';

/*
 * The one table of block types (docs/api.md#blocks): how each renders, which of its fields have text,
 * and what else of it a publish checks. The shape each renders from is the contract's (KNOWN_BLOCKS);
 * the table is typed by it, so a type with a shape and no entry does not compile.
 */

/** A text of a block that renders and may have inline markup, with its path for warnings. */
export interface TextVisit {
  path: string;
  text: string;
}

/** What a block's entry renders with: the page's rules for texts, links, citations and Portable Text. */
export interface BlockHtml {
  /** A field as escaped text with its inline markup, or '' when it has no text (an object is never echoed). */
  field(value: unknown): string;
  /** A text, escaped, with its inline markup. */
  text(text: string): string;
  /** Inline nodes after `out` (spans and citations). */
  inline(nodes: readonly unknown[], out: string): string;
  /** Portable Text blocks, through Portable Text's own renderer. */
  portableText(run: readonly Block[]): string;
}

export interface BlockType {
  /**
   * The block's HTML, from whatever of its shape is usable: '' when it lacks the field it is made of.
   * `atTop`: the block is the first thing under the page's title, in view when the page opens.
   */
  render(block: Block, html: BlockHtml, atTop: boolean): string;
  /** Its texts that render with inline markup: link and citation warnings, page links, structured data. */
  texts(block: Block, path: string): Generator<TextVisit>;
  /** Its inline nodes (spans, citations), whose types a publish checks. */
  inlineNodes?(block: Block): readonly unknown[];
  /** Its link annotations (`markDefs` entries with an `href`), with their paths. */
  links?(block: Block, path: string): Generator<{ path: string; href: string }>;
  /** Its image, when it has one: a publish warns when its URL's scheme is not allowed; link previews show it. */
  image?(block: Block): BlockImage | null;
}

/** An image block's image as sent: its URL (any scheme), its alt text, and its size when it gives one. */
export interface BlockImage {
  url: string;
  alt: string;
  width: number | null;
  height: number | null;
}

/** A field's items when it is an array, else none: a block as sent may have anything in any field. */
export const itemsOf = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** The text a field renders as: a string, or a number as written; anything else (an object) renders nothing. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function* field(value: unknown, path: string): Generator<TextVisit> {
  const text = textOf(value);
  if (text !== undefined) yield { path, text };
}

function* spanTexts(children: unknown, path: string): Generator<TextVisit> {
  for (const [i, node] of itemsOf(children).entries()) {
    const text = isJsonObject(node) && node._type === 'span' ? textOf(node.text) : undefined;
    if (text !== undefined) yield { path: `${path}.children[${i}].text`, text };
  }
}

/** h1–h6 from a heading's `level`: a number (or numeric string) is rounded and clamped, anything else is h2. */
function headingLevel(level: unknown): number {
  const n = typeof level === 'string' && level.trim() !== '' ? Number(level) : level;
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(6, Math.max(1, Math.round(n))) : 2;
}

/** List styles that render as a numbered list: the spec's `number`, and `ordered` as clients also send it. */
const ORDERED_STYLES: ReadonlySet<unknown> = new Set(['number', 'ordered']);

const isCalloutTone = (tone: unknown): tone is (typeof CALLOUT_TONES)[number] => CALLOUT_TONES.some((t) => t === tone);

/** An image's intrinsic size, only when a positive whole number of pixels. */
const pixels = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;

const sizeAttribute = (name: string, value: number | null): string => (value === null ? '' : ` ${name}="${value}"`);

const imageOf = (block: Block): BlockImage | null =>
  typeof block.url === 'string'
    ? { url: block.url, alt: textOf(block.alt) ?? '', width: pixels(block.width), height: pixels(block.height) }
    : null;

/** A code block's language as a class name: only a plain token (`ts`, `c++`, `objective-c`), else none. */
const LANGUAGE = /^[A-Za-z0-9][A-Za-z0-9_+#.-]{0,39}$/;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A text field that renders alone (a heading, a callout): none when it has no text. */
const textField = (block: Block, path: string) => field(block.text, `${path}.text`);

export const BLOCK_TYPES: { readonly [T in KnownBlockType]: BlockType } = {
  heading: {
    render: (block, html) => {
      if (textOf(block.text) === undefined) return '';
      const level = headingLevel(block.level);
      return `<h${level}>${html.field(block.text)}</h${level}>`;
    },
    texts: textField,
  },
  paragraph: {
    render: (block, html) => {
      const children = Array.isArray(block.children) ? block.children : null;
      if (textOf(block.text) === undefined && !children) return '';
      return `<p>${html.inline(children ?? [], html.field(block.text))}</p>`;
    },
    *texts(block, path) {
      yield* field(block.text, `${path}.text`);
      yield* spanTexts(block.children, path);
    },
    inlineNodes: (block) => itemsOf(block.children),
  },
  statBar: {
    render: (block, html) => {
      if (!Array.isArray(block.stats)) return '';
      const stats = block.stats
        .filter(isJsonObject)
        .map((s) => `<div class="stat"><dt>${html.field(s.label)}</dt><dd>${html.field(s.value)}</dd></div>`);
      return `<dl class="stat-bar">${stats.join('')}</dl>`;
    },
    *texts(block, path) {
      for (const [i, stat] of itemsOf(block.stats).entries()) {
        if (!isJsonObject(stat)) continue;
        yield* field(stat.value, `${path}.stats[${i}].value`);
        yield* field(stat.label, `${path}.stats[${i}].label`);
      }
    },
  },
  list: {
    render: (block, html) => {
      if (!Array.isArray(block.items)) return '';
      const tag = ORDERED_STYLES.has(block.style) ? 'ol' : 'ul';
      const items = block.items.flatMap((item) => {
        // An item sent as an object renders its `text`, by the same rules as an item sent as a string.
        const text = textOf(isJsonObject(item) ? item.text : item);
        return text === undefined ? [] : [`<li>${html.text(text)}</li>`];
      });
      return `<${tag}>${items.join('')}</${tag}>`;
    },
    *texts(block, path) {
      for (const [i, item] of itemsOf(block.items).entries())
        yield* isJsonObject(item) ? field(item.text, `${path}.items[${i}].text`) : field(item, `${path}.items[${i}]`);
    },
  },
  quote: {
    render: (block, html) => {
      if (textOf(block.text) === undefined) return '';
      const cite = textOf(block.cite) ? `<footer><cite>${html.field(block.cite)}</cite></footer>` : '';
      return `<blockquote><p>${html.field(block.text)}</p>${cite}</blockquote>`;
    },
    *texts(block, path) {
      yield* field(block.text, `${path}.text`);
      yield* field(block.cite, `${path}.cite`);
    },
  },
  image: {
    render: (block, html, atTop) => {
      const image = imageOf(block);
      const src = allowedImageUrl(image?.url);
      if (!image || !src) return '';
      const caption = textOf(block.caption) ? `<figcaption>${html.field(block.caption)}</figcaption>` : '';
      const size = sizeAttribute('width', image.width) + sizeAttribute('height', image.height);
      // Below the fold it loads when the reader gets near it; in view when the page opens, at once.
      const loading = atTop ? '' : ' loading="lazy"';
      return `<figure><img src="${escapeHtml(src)}" alt="${escapeHtml(image.alt)}"${size}${loading} decoding="async">${caption}</figure>`;
    },
    texts: (block, path) => field(block.caption, `${path}.caption`),
    image: imageOf,
  },
  callout: {
    render: (block, html) => {
      if (textOf(block.text) === undefined) return '';
      const tone = isCalloutTone(block.tone) ? ` callout-${block.tone}` : '';
      return `<aside class="callout${tone}"><p>${html.field(block.text)}</p></aside>`;
    },
    texts: textField,
  },
  table: {
    render: (block, html) => {
      if (!Array.isArray(block.header) && !Array.isArray(block.rows)) return '';
      const head = itemsOf(block.header)
        .map((cell) => `<th>${html.field(cell)}</th>`)
        .join('');
      const rows = itemsOf(block.rows)
        .filter(Array.isArray)
        .map((row) => `<tr>${row.map((cell) => `<td>${html.field(cell)}</td>`).join('')}</tr>`)
        .join('');
      // The wrapper scrolls a wide table sideways on a narrow screen; the table keeps its semantics. A
      // keyboard reaches it (tabindex) to scroll it, and a screen reader names it by its columns.
      const columns = itemsOf(block.header)
        .map((cell) => markupWords(textOf(cell) ?? '').trim())
        .filter(Boolean);
      const label = columns.length > 0 ? `Table: ${columns.join(', ')}` : 'Table';
      return `<div class="table" role="region" aria-label="${escapeHtml(label)}" tabindex="0"><table>${head ? `<thead><tr>${head}</tr></thead>` : ''}<tbody>${rows}</tbody></table></div>`;
    },
    *texts(block, path) {
      for (const [i, cell] of itemsOf(block.header).entries()) yield* field(cell, `${path}.header[${i}]`);
      for (const [r, row] of itemsOf(block.rows).entries())
        for (const [c, cell] of itemsOf(row).entries()) yield* field(cell, `${path}.rows[${r}][${c}]`);
    },
  },
  code: {
    // Code is shown verbatim: escaped, never read for links or citations.
    render: (block) => {
      const code = textOf(block.code);
      if (code === undefined) return '';
      const language = typeof block.language === 'string' && LANGUAGE.test(block.language) ? block.language : null;
      const filename = textOf(block.filename);
      return [
        '<figure class="code">',
        filename ? `<figcaption>${escapeHtml(filename)}</figcaption>` : '',
        `<pre><code${language ? ` class="language-${escapeHtml(language.toLowerCase())}"` : ''}>${escapeHtml(code)}</code></pre>`,
        '</figure>',
      ].join('');
    },
    *texts() {},
  },
  block: {
    render: (block, html) => html.portableText([block]),
    texts: (block, path) => spanTexts(block.children, path),
    inlineNodes: (block) => itemsOf(block.children),
    *links(block, path) {
      for (const [i, def] of itemsOf(block.markDefs).entries()) {
        if (isJsonObject(def) && def._type === 'link' && typeof def.href === 'string')
          yield { path: `${path}.markDefs[${i}].href`, href: def.href };
      }
    },
  },
};

/** The table's entry for a block's type, or null for a type it does not know (own keys only: `constructor` is unknown). */
export const blockType = (block: Block): BlockType | null =>
  isKnownBlockType(block._type) ? BLOCK_TYPES[block._type] : null;
