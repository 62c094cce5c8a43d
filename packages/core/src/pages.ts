import {
  ApiError,
  isKnownBlockType,
  isLive,
  type PageState,
  type PageRecord,
  isKnownInlineType,
  type ArticleDoc,
  type ArticleInput,
  type Block,
  type PageDoc,
  type PageType,
  type PublishWarning,
  type QuestionDoc,
  type QuestionInput,
} from '@cm/contract';
import { pageId } from './ids';
import { INLINE_MARKUP, pageLinkTargets } from './markup';
import { withLinksSuppressed } from './relink';
import { allowedImageUrl, allowedUrl } from './urls';

/** The article as stored: what was sent, with the defaults of docs/api.md#articles applied. */
export function articleDoc(input: ArticleInput, now: string): ArticleDoc {
  const excerpt = input.excerpt ?? null;
  return {
    slug: input.slug,
    title: input.title,
    body: input.body,
    excerpt,
    copy: input.copy ?? null,
    keywords: input.keywords ?? [],
    meta_title: input.meta_title ?? input.title,
    meta_description: input.meta_description !== undefined ? input.meta_description : excerpt,
    audience: input.audience ?? null,
    goal: input.goal ?? null,
    category: input.category ?? null,
    cover_image: input.cover_image ?? null,
    canonical_url: input.canonical_url ?? null,
    noindex: input.noindex ?? false,
    schema_type: input.schema_type ?? 'Article',
    related_article_ids: input.related_article_ids ?? [],
    related_question_ids: input.related_question_ids ?? [],
    status: input.status ?? 'published',
    ai_generated: input.ai_generated ?? true,
    ai_model: input.ai_model ?? null,
    updated_at: input.updated_at ?? now,
  };
}

/** The question as stored; without `status` it is published (spec §3). */
export function questionDoc(input: QuestionInput, now: string): QuestionDoc {
  return {
    slug: input.slug,
    question: input.question,
    answer: input.answer,
    sources: input.sources ?? [],
    topics: input.topics ?? [],
    meta_title: input.meta_title ?? input.question,
    meta_description: input.meta_description ?? null,
    related_question_ids: input.related_question_ids ?? [],
    related_article_ids: input.related_article_ids ?? [],
    status: input.status ?? 'published',
    ai_model: input.ai_model ?? null,
    updated_at: input.updated_at ?? now,
  };
}

export const isArticleDoc = (doc: PageDoc): doc is ArticleDoc => 'body' in doc;

export const pageBlocks = (doc: PageDoc): Block[] => (isArticleDoc(doc) ? doc.body : doc.answer);

/**
 * The pages this page links to, the edges of the link index: `page:<id>` markers in `copy` and the
 * related ids. Sorted, so that "did the links change" is a string comparison.
 */
export function outgoingLinks(doc: PageDoc): string[] {
  const copy = isArticleDoc(doc) ? doc.copy : null;
  const ids = new Set([...pageLinkTargets(copy), ...doc.related_article_ids, ...doc.related_question_ids]);
  return [...ids].sort();
}

interface TextVisit {
  path: string;
  text: string;
  listItem: boolean;
}

/** Every text of a block that inline markup may appear in, with its path for warnings. */
export function* blockTexts(block: Block, path: string): Generator<TextVisit> {
  const str = (v: unknown): v is string => typeof v === 'string';
  switch (block._type) {
    case 'heading':
    case 'callout':
      if (str(block.text)) yield { path: `${path}.text`, text: block.text, listItem: false };
      return;
    case 'quote':
      if (str(block.text)) yield { path: `${path}.text`, text: block.text, listItem: false };
      if (str(block.cite)) yield { path: `${path}.cite`, text: block.cite, listItem: false };
      return;
    case 'image':
      if (str(block.caption)) yield { path: `${path}.caption`, text: block.caption, listItem: false };
      return;
    case 'statBar':
      for (const [i, stat] of (block.stats as { value: string; label: string }[]).entries()) {
        yield { path: `${path}.stats[${i}].value`, text: stat.value, listItem: false };
        yield { path: `${path}.stats[${i}].label`, text: stat.label, listItem: false };
      }
      return;
    case 'paragraph':
      if (str(block.text)) yield { path: `${path}.text`, text: block.text, listItem: false };
      if (Array.isArray(block.children)) {
        for (const [i, node] of (block.children as Block[]).entries()) {
          if (node._type === 'span' && str(node.text)) {
            yield { path: `${path}.children[${i}].text`, text: node.text, listItem: false };
          }
        }
      }
      return;
    case 'list':
      for (const [i, item] of (block.items as string[]).entries()) {
        yield { path: `${path}.items[${i}]`, text: item, listItem: true };
      }
      return;
    case 'table':
      for (const [i, cell] of (block.header as string[]).entries()) {
        yield { path: `${path}.header[${i}]`, text: cell, listItem: false };
      }
      for (const [r, row] of (block.rows as string[][]).entries()) {
        for (const [c, cell] of row.entries()) yield { path: `${path}.rows[${r}][${c}]`, text: cell, listItem: false };
      }
      return;
    default:
  }
}

/**
 * What a publish accepted but readers will not see (docs/api.md#warnings). Messages never repeat the
 * offending values.
 */
export function publishWarnings(type: PageType, doc: PageDoc): PublishWarning[] {
  const warnings: PublishWarning[] = [];
  const warn = (path: string, message: string) => warnings.push({ path, message });
  const field = type === 'article' ? 'body' : 'answer';
  const sourceIds = new Set(isArticleDoc(doc) ? [] : doc.sources.map((s) => s.id));
  const citation = (path: string, id: string) => {
    if (type === 'article') warn(path, 'citation markers are not rendered in an article');
    else if (!sourceIds.has(id)) warn(path, 'citation of a source id that is not in sources; it is not rendered');
  };

  for (const [i, block] of pageBlocks(doc).entries()) {
    const path = `${field}[${i}]`;
    if (!isKnownBlockType(block._type)) {
      warn(path, 'unknown block type; stored, not rendered');
      continue;
    }
    if (block._type === 'image' && !allowedImageUrl(block.url as string)) {
      warn(`${path}.url`, 'URL scheme not allowed (http, https); the image is not rendered');
    }
    if (block._type === 'paragraph' && Array.isArray(block.children)) {
      for (const [j, node] of (block.children as Block[]).entries()) {
        if (!isKnownInlineType(node._type)) warn(`${path}.children[${j}]`, 'unknown inline node type; not rendered');
        else if (node._type === 'sourceCitation') citation(`${path}.children[${j}]`, node.id as string);
      }
    }
    for (const visit of blockTexts(block, path)) {
      for (const m of visit.text.matchAll(INLINE_MARKUP)) {
        if (m[2] !== undefined && !m[2].startsWith('page:') && !allowedUrl(m[2])) {
          warn(visit.path, 'link URL scheme not allowed (http, https, mailto); rendered as plain text');
        } else if (m[4] !== undefined && (visit.listItem || type === 'article')) {
          citation(visit.path, m[4]);
        }
      }
    }
  }
  if (isArticleDoc(doc) && doc.cover_image && !allowedImageUrl(doc.cover_image)) {
    warn('cover_image', 'URL scheme not allowed (http, https); not rendered');
  }
  return warnings;
}

/** The visitor URL of a page. */
export const visitorUrl = (baseUrl: string, siteId: number, type: PageType, slug: string): string =>
  `${baseUrl}/sites/${siteId}/${type}s/${encodeURIComponent(slug)}`;

/** The page as `GET /articles/{id}` and `GET /questions/{id}` return it: its current state and links. */
export function pageRecord(page: PageState): PageRecord {
  const current = {
    status: page.status,
    updated_at: page.updated_at,
    id: page.id,
    site_id: page.site_id,
    created_at: page.created_at,
    live: isLive(page.status, page.deleted),
  };
  const doc = withLinksSuppressed(page.doc, page.suppressed);
  if (page.type === 'article') return { ...(doc as ArticleDoc), ...current, type: 'article' };
  return {
    ...(doc as QuestionDoc),
    ...current,
    type: 'question',
    summary: page.summary,
    community_answers: page.community_answers,
  };
}

export interface PreparedPublish {
  id: string;
  doc: PageDoc;
  links: string[];
  warnings: PublishWarning[];
}

/**
 * Everything a publish decides before it writes: the site check (spec §4.1 rule 3), the stored document
 * with its defaults, the page id, the outgoing links to index and the warnings to report.
 */
export function preparePublish(
  siteId: number,
  input: { type: 'article'; value: ArticleInput } | { type: 'question'; value: QuestionInput },
  now: string,
): PreparedPublish {
  const claimed = input.value.site_id;
  if (claimed !== undefined && claimed !== siteId) {
    throw new ApiError('site_mismatch', `site_id ${claimed} is not the site of this API key`);
  }
  const doc = input.type === 'article' ? articleDoc(input.value, now) : questionDoc(input.value, now);
  return { id: pageId(siteId, input.type, doc.slug), doc, links: outgoingLinks(doc), warnings: publishWarnings(input.type, doc) };
}
