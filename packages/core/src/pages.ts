import {
  ApiError,
  blockShapeIssues,
  formatPath,
  isLive,
  type PageState,
  type PageRecord,
  isKnownInlineType,
  isJsonObject,
  isoDateOrTimestamp,
  SERVICE_LIMITS,
  type ArticleDoc,
  type ArticleInput,
  type Block,
  type PageDoc,
  type PageType,
  type PublishWarning,
  type QuestionDoc,
  type QuestionInput,
  type Source,
  type SuppressedLink,
} from '@cm/contract';
import { createHash } from 'node:crypto';
import { blockType, textOf, type TextVisit } from './blocks';
import { pageId, pageTypeOfId } from './ids';
import { INLINE_MARKUP, pageLinkTargets } from './markup';
import { withLinksSuppressed } from './relink';
import { pageUrl, sectionSlug } from './site-urls';
import { allowedImageUrl, allowedUrl } from './urls';

/**
 * An SEO field as it takes effect: one sent empty (or only spaces) falls back as one left out does, since
 * `<title></title>` or an empty description serves no reader or crawler (publishWarnings says so).
 */
const seoField = (value: string | null | undefined): string | null | undefined =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** The article as stored: what was sent, with the defaults of docs/api.md#articles applied (null counts as left out). */
export function articleDoc(input: ArticleInput, now: string): ArticleDoc {
  const excerpt = input.excerpt ?? null;
  return {
    slug: input.slug,
    title: input.title,
    body: input.body,
    excerpt,
    copy: input.copy ?? null,
    keywords: input.keywords ?? [],
    meta_title: seoField(input.meta_title) ?? input.title,
    meta_description: seoField(input.meta_description) ?? excerpt,
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
    meta_title: seoField(input.meta_title) ?? input.question,
    meta_description: seoField(input.meta_description) ?? null,
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
 * The pages this page links to, the edges of the link index: `page:<id>` links in `copy` and in the
 * blocks, and the related ids, each a page id of ours (any other names no page, and would put text of
 * any length in the index's keys). Sorted, so that "did the links change" is a string comparison.
 */
export function outgoingLinks(doc: PageDoc): string[] {
  const copy = isArticleDoc(doc) ? doc.copy : null;
  const ids = new Set([
    ...pageLinkTargets(copy),
    ...blockLinkTargets(pageBlocks(doc)),
    ...doc.related_article_ids,
    ...doc.related_question_ids,
  ]);
  return [...ids].filter((id) => pageTypeOfId(id) !== null).sort();
}

/**
 * The link targets of blocks that cannot change (a kept document's, frozen: store/kept-docs.ts), worked
 * out once: a visitor page asks for its document's at every request.
 */
const frozenBlockTargets = new WeakMap<readonly Block[], readonly string[]>();

/** The page ids blocks link to, by `[text](page:<id>)` in their texts or a `page:<id>` link annotation. */
export function blockLinkTargets(blocks: readonly Block[]): readonly string[] {
  const kept = frozenBlockTargets.get(blocks);
  if (kept) return kept;
  const ids = new Set<string>();
  for (const block of blocks) {
    for (const visit of blockTexts(block, '')) for (const id of pageLinkTargets(visit.text)) ids.add(id);
    for (const { href } of blockType(block)?.links?.(block, '') ?? [])
      if (href.startsWith('page:') && href.length > 5) ids.add(href.slice(5));
  }
  const targets = Object.freeze([...ids]);
  if (Object.isFrozen(blocks)) frozenBlockTargets.set(blocks, targets);
  return targets;
}

/** Every text of a block that renders and may have inline markup, with its path for warnings; none for an unknown type. */
export const blockTexts = (block: Block, path: string): Iterable<TextVisit> =>
  blockType(block)?.texts(block, path) ?? [];

/**
 * What a publish accepted but readers will not see as sent (docs/api.md#warnings). Messages never repeat
 * the offending values.
 */
export function publishWarnings(type: PageType, doc: PageDoc): PublishWarning[] {
  const warnings: PublishWarning[] = [];
  const warn = (path: string, message: string) => warnings.push({ path, message });
  const field = type === 'article' ? 'body' : 'answer';
  const sourceIds = new Set(isArticleDoc(doc) ? [] : doc.sources.flatMap((s) => (s.id ? [s.id] : [])));
  const citation = (path: string, id: string) => {
    if (type === 'article') warn(path, 'citation markers are not rendered in an article');
    else if (!sourceIds.has(id)) warn(path, 'citation of a source id that is not in sources; it is not rendered');
  };

  for (const [i, block] of pageBlocks(doc).entries()) {
    const path = `${field}[${i}]`;
    const kind = blockType(block);
    if (!kind) {
      warn(path, 'unknown block type; stored, not rendered');
      continue;
    }
    for (const issue of blockShapeIssues(block)) {
      const at = issue.path.length > 0 ? `${path}.${formatPath(issue.path)}` : path;
      warn(at, `not the shape that renders (${issue.message}); stored as sent, rendered as far as it can be`);
    }
    // A URL that is not absolute already has its shape warning.
    const imageUrl = kind.image?.(block)?.url;
    if (imageUrl && URL.canParse(imageUrl) && !allowedImageUrl(imageUrl)) {
      warn(`${path}.url`, 'URL scheme not allowed (http, https); the image is not rendered');
    }
    for (const [j, node] of (kind.inlineNodes?.(block) ?? []).entries()) {
      // A node without a `_type` already has its shape warning.
      if (!isJsonObject(node) || typeof node._type !== 'string' || node._type === '') continue;
      const id = textOf(node.id);
      if (!isKnownInlineType(node._type)) warn(`${path}.children[${j}]`, 'unknown inline node type; not rendered');
      else if (node._type === 'sourceCitation' && id !== undefined) citation(`${path}.children[${j}]`, id);
    }
    for (const link of kind.links?.(block, path) ?? []) {
      if (!link.href.startsWith('page:') && !allowedUrl(link.href))
        warn(link.path, 'link URL scheme not allowed (http, https, mailto); rendered as plain text');
    }
    for (const visit of kind.texts(block, path)) {
      for (const m of visit.text.matchAll(INLINE_MARKUP)) {
        if (m[2] !== undefined && !m[2].startsWith('page:') && !allowedUrl(m[2])) {
          warn(visit.path, 'link URL scheme not allowed (http, https, mailto); rendered as plain text');
        } else if (m[4] !== undefined) {
          citation(visit.path, m[4]);
        }
      }
    }
  }
  if (!isArticleDoc(doc)) warnings.push(...sourceWarnings(doc.sources));
  const topicPages = new Set(isArticleDoc(doc) ? [] : doc.topics.map(sectionSlug).filter(Boolean));
  if (topicPages.size > SERVICE_LIMITS.topicsListedMax)
    warn('topics', `only the first ${SERVICE_LIMITS.topicsListedMax} topics list the question on their topic pages`);
  if (isArticleDoc(doc) && doc.cover_image && !allowedImageUrl(doc.cover_image)) {
    warn('cover_image', 'URL scheme not allowed (http, https); not rendered');
  }
  return warnings;
}

/** The SEO fields sent empty, and what is used instead. */
function emptySeoWarnings(type: PageType, input: ArticleInput | QuestionInput): PublishWarning[] {
  const fallbacks = {
    meta_title: type === 'article' ? 'the title' : 'the question',
    meta_description: type === 'article' ? 'the excerpt, if any' : 'none',
  };
  return (['meta_title', 'meta_description'] as const).flatMap((field) =>
    seoField(input[field]) === undefined && typeof input[field] === 'string'
      ? [{ path: field, message: `empty; ${fallbacks[field]} is used, as when it is left out` }]
      : [],
  );
}

/** What each source lacks (spec §2.3 marks no field required): it is stored and rendered with what is there. */
function sourceWarnings(sources: readonly Source[]): PublishWarning[] {
  return sources.flatMap((source, i) => {
    const path = `sources[${i}]`;
    const out: PublishWarning[] = [];
    if (!source.id) out.push({ path: `${path}.id`, message: 'missing; a source without an id cannot be cited' });
    if (!source.title) out.push({ path: `${path}.title`, message: 'missing; the source is listed by its URL or id' });
    if (!source.url) out.push({ path: `${path}.url`, message: 'missing; the source is listed without a link' });
    else if (!allowedUrl(source.url))
      out.push({
        path: `${path}.url`,
        message: 'URL scheme not allowed (http, https, mailto); the source is listed without a link',
      });
    if (!source.accessed_at)
      out.push({ path: `${path}.accessed_at`, message: 'missing; the source is listed without a date' });
    else if (isoDateOrTimestamp(source.accessed_at) === null)
      out.push({
        path: `${path}.accessed_at`,
        message: 'not an ISO 8601 date (e.g. 2026-10-01); stored and shown as sent',
      });
    return out;
  });
}

/**
 * The page as `GET /articles/{id}` and `GET /questions/{id}` return it: the document as sent, its
 * current state, and the links relink keeps from readers (`suppressed_links`).
 */
export function pageRecord(page: PageState): PageRecord {
  return recordOf(page, page.doc);
}

/** The page as readers see it: the links to pages that are not live are taken out (relink). */
export function readerRecord(page: PageState): PageRecord {
  return recordOf(
    page,
    withLinksSuppressed(
      page.doc,
      page.suppressed.map((s) => s.id),
    ),
  );
}

/** A page's suppressed links as the API shows them, each with its target's type. */
export const suppressedLinks = (suppressed: PageState['suppressed']): SuppressedLink[] =>
  suppressed.flatMap(({ id, since }) => {
    const type = pageTypeOfId(id);
    return type ? [{ id, type, since }] : [];
  });

/** The changes a page's schedule still has due, as replies report them (none: no field). */
export const scheduleReported = (schedule: {
  publish_at?: string | null;
  unpublish_at?: string | null;
}): { publish_at?: string; unpublish_at?: string } => ({
  ...(schedule.publish_at ? { publish_at: schedule.publish_at } : {}),
  ...(schedule.unpublish_at ? { unpublish_at: schedule.unpublish_at } : {}),
});

function recordOf(page: PageState, doc: PageDoc): PageRecord {
  const current = {
    status: page.status,
    updated_at: page.updated_at,
    id: page.id,
    site_id: page.site_id,
    created_at: page.created_at,
    live: isLive(page.status, page.deleted),
    deleted: page.deleted,
    suppressed_links: suppressedLinks(page.suppressed),
    relinked_at: page.relinked_at,
    ...scheduleReported(page),
  };
  // The store keeps a page's type beside the document it was published with; they always agree.
  if (page.type !== (isArticleDoc(doc) ? 'article' : 'question'))
    throw new Error(`page ${page.id} is stored as a ${page.type} with the other type's document`);
  if (isArticleDoc(doc)) return { ...doc, ...current, type: 'article' };
  return {
    ...doc,
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
 * The site check of a publish (spec §4.1 rule 3): a `site_id` the body carries, whatever its type, must be
 * the key's site. Its decimal string is tolerated (`"1"`), and null is the same as leaving it out; anything
 * else is 403.
 */
export function checkBodySiteId(siteId: number, given: unknown): void {
  if (given === undefined || given === null || given === siteId || given === String(siteId)) return;
  throw new ApiError('site_mismatch', `site_id must be ${siteId}, the site of this API key, or be left out`);
}

/**
 * Everything a publish decides before it writes, once the body passed the site check: the stored
 * document with its defaults, the page id, the outgoing links to index and the warnings to report.
 */
export function preparePublish(
  siteId: number,
  input: { type: 'article'; value: ArticleInput } | { type: 'question'; value: QuestionInput },
  now: string,
): PreparedPublish {
  const doc = input.type === 'article' ? articleDoc(input.value, now) : questionDoc(input.value, now);
  return {
    id: pageId(siteId, input.type, doc.slug),
    doc,
    links: outgoingLinks(doc),
    warnings: [...emptySeoWarnings(input.type, input.value), ...publishWarnings(input.type, doc)],
  };
}

/**
 * A page document's content, in a few bytes: its document but the editor's `updated_at`, which a
 * republish without one moves by itself. A publish whose content has the live version's hash keeps no
 * revision and tells search engines nothing (a change of `updated_at` alone still shows on the page).
 */
export function contentHash(doc: PageDoc): string {
  const { updated_at: _date, ...content } = doc;
  return createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 22);
}

/**
 * A publish's warning per other live page of the site whose primary keyword is the one it names: two
 * pages written for one query compete for it (cannibalisation), so the agent can merge, retarget or
 * link them. The message names the page, never the keyword.
 */
export function primaryKeywordWarnings(
  holders: ReadonlyArray<{ id: string; type: PageType; slug: string }>,
  siteRoot: string,
): PublishWarning[] {
  return holders.map((holder) => {
    const url = pageUrl(siteRoot, holder.type, holder.slug);
    return {
      path: 'primary_keyword',
      message: `also the primary keyword of the live ${holder.type} ${holder.id} (${url}): two pages for one query compete for it; merge them, or give one another keyword`,
      page: { id: holder.id, type: holder.type, slug: holder.slug, url },
    };
  });
}
