import * as z from 'zod';
import { Blocks } from './blocks';
import { AbsoluteUrl, DateOrTimestamp, HttpUrl, PAGE_TYPES, PageStatus, SiteIdClaim, Slug, StringList, Timestamp, type PageType } from './common';

/** Display titles and questions are short; the cap keeps listings (which carry them) small. */
export const TITLE_MAX = 2000;

export const Source = z.object({
  id: z.string().min(1),
  title: z.string(),
  url: AbsoluteUrl,
  accessed_at: DateOrTimestamp,
});
export type Source = z.infer<typeof Source>;

/**
 * Fields articles and questions share (spec §2.1, §2.2). An optional field sent as null is taken as left
 * out, so its default applies (docs/api.md#publishing).
 */
const PageInputFields = {
  slug: Slug,
  meta_title: z.string().nullish(),
  meta_description: z.string().nullish(),
  related_article_ids: StringList.nullish(),
  related_question_ids: StringList.nullish(),
  status: PageStatus.nullish(),
  ai_model: z.string().nullish(),
  updated_at: Timestamp.nullish(),
  site_id: SiteIdClaim,
};

/** Body of POST /articles (spec §2.1, docs/api.md#articles). Unknown fields, `sources` among them, are dropped. */
export const ArticleInput = z
  .object({
    ...PageInputFields,
    title: z.string().min(1).max(TITLE_MAX),
    body: Blocks,
    excerpt: z.string().nullish(),
    copy: z.string().nullish(),
    keywords: StringList.nullish(),
    audience: z.union([z.string(), StringList]).nullish(),
    goal: z.string().nullish(),
    category: z.string().nullish(),
    cover_image: AbsoluteUrl.nullish(),
    canonical_url: HttpUrl.nullish(),
    noindex: z.boolean().nullish(),
    schema_type: z.string().min(1).nullish(),
    ai_generated: z.boolean().nullish(),
  })
  .meta({ id: 'ArticleInput' });
export type ArticleInput = z.infer<typeof ArticleInput>;

/** Body of POST /questions (spec §2.2, docs/api.md#questions). A `summary` field is site-owned and dropped. */
export const QuestionInput = z
  .object({
    ...PageInputFields,
    question: z.string().min(1).max(TITLE_MAX),
    answer: Blocks,
    sources: z.array(Source).nullish(),
    topics: StringList.nullish(),
  })
  .meta({ id: 'QuestionInput' });
export type QuestionInput = z.infer<typeof QuestionInput>;

/** What the editor service owns of an article, defaults applied: replaced whole on every publish. */
export const ArticleDoc = z.object({
  slug: z.string(),
  title: z.string(),
  body: Blocks,
  excerpt: z.string().nullable(),
  copy: z.string().nullable(),
  keywords: StringList,
  meta_title: z.string(),
  meta_description: z.string().nullable(),
  audience: z.union([z.string(), StringList]).nullable(),
  goal: z.string().nullable(),
  category: z.string().nullable(),
  cover_image: z.string().nullable(),
  canonical_url: z.string().nullable(),
  noindex: z.boolean(),
  schema_type: z.string(),
  related_article_ids: StringList,
  related_question_ids: StringList,
  status: PageStatus,
  ai_generated: z.boolean(),
  ai_model: z.string().nullable(),
  updated_at: z.string(),
});
export type ArticleDoc = z.infer<typeof ArticleDoc>;

export const QuestionDoc = z.object({
  slug: z.string(),
  question: z.string(),
  answer: Blocks,
  sources: z.array(Source),
  topics: StringList,
  meta_title: z.string(),
  meta_description: z.string().nullable(),
  related_question_ids: StringList,
  related_article_ids: StringList,
  status: PageStatus,
  ai_model: z.string().nullable(),
  updated_at: z.string(),
});
export type QuestionDoc = z.infer<typeof QuestionDoc>;

export type PageDoc = ArticleDoc | QuestionDoc;

/** A link relink took out of what readers see, while its target is not live: since when (null if not recorded). */
export const SuppressedLink = z.object({
  id: z.string(),
  type: z.enum(PAGE_TYPES),
  since: z.string().nullable(),
});
export type SuppressedLink = z.infer<typeof SuppressedLink>;

/**
 * A page as the store keeps it: the editor's document as published, and beside it what changed since.
 * `status` and `deleted` are current (notify moves them); `suppressed` lists the pages whose links relink
 * takes out of what readers see while they are not live, and `relinked_at` when relink last did so.
 */
export interface PageState {
  site_id: number;
  type: PageType;
  id: string;
  doc: PageDoc;
  status: PageStatus;
  deleted: boolean;
  created_at: string;
  updated_at: string;
  suppressed: { id: string; since: string | null }[];
  relinked_at: string | null;
  summary: string | null;
  community_answers: CommunityAnswer[];
}

/** What readers can reach: a published page the site has not deleted. */
export const isLive = (status: PageStatus, deleted: boolean): boolean => status === 'published' && !deleted;

const PageMeta = {
  id: z.string(),
  site_id: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
  live: z.boolean().meta({ description: 'Whether readers can reach the page now.' }),
  deleted: z.boolean().meta({ description: 'The site reported the page deleted (visitors get 410).' }),
  suppressed_links: z.array(SuppressedLink).meta({
    description: 'Links of this page that readers do not see while their target is not live; the document above is as sent.',
  }),
  relinked_at: z.string().nullable().meta({ description: 'When relink last changed what readers see of this page.' }),
};

export const CommunityAnswer = z.object({
  answer_id: z.string(),
  author: z.string(),
  blocks: Blocks,
  created_at: z.string(),
});
export type CommunityAnswer = z.infer<typeof CommunityAnswer>;

export const ArticleRecord = ArticleDoc.extend({ ...PageMeta, type: z.literal('article') }).meta({ id: 'Article' });
export type ArticleRecord = z.infer<typeof ArticleRecord>;

export const QuestionRecord = QuestionDoc.extend({
  ...PageMeta,
  type: z.literal('question'),
  summary: z.string().nullable().meta({ description: 'Site-owned; never written by a publish.' }),
  community_answers: z.array(CommunityAnswer),
}).meta({ id: 'Question' });
export type QuestionRecord = z.infer<typeof QuestionRecord>;

export type PageRecord = ArticleRecord | QuestionRecord;

export const PublishWarning = z.object({ path: z.string(), message: z.string() });
export type PublishWarning = z.infer<typeof PublishWarning>;

export const PublishResult = z
  .object({
    id: z.string().meta({ description: "The site's id for the page, stable for the life of the slug." }),
    type: z.enum(['article', 'question']),
    slug: z.string(),
    status: PageStatus,
    created: z.boolean(),
    updated_at: z.string(),
    url: z.string().meta({ description: 'The visitor page.' }),
    warnings: z.array(PublishWarning),
  })
  .meta({ id: 'PublishResult' });
export type PublishResult = z.infer<typeof PublishResult>;

export const PageListQuery = z.object({
  slug: Slug.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
  status: PageStatus.optional(),
  suppressed_links: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: "true: each item also lists the page's links relink keeps from readers (one more read of the listed pages)" }),
});
export type PageListQuery = z.infer<typeof PageListQuery>;

export const PageListItem = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string().optional(),
  question: z.string().optional(),
  status: PageStatus,
  live: z.boolean(),
  deleted: z.boolean(),
  updated_at: z.string(),
  url: z.string().meta({ description: 'The visitor page.' }),
  suppressed_links: z.array(SuppressedLink).optional().meta({ description: 'With suppressed_links=true: as on the page itself.' }),
});
export type PageListItem = z.infer<typeof PageListItem>;

export const PageList = z.object({ items: z.array(PageListItem), next_cursor: z.string().nullable() }).meta({ id: 'PageList' });
export type PageList = z.infer<typeof PageList>;

export const PageIdParams = z.object({ id: z.string().min(1).max(100) });

export const SummaryInput = z.object({ summary: z.string().nullable() });
export const CommunityAnswerInput = z.object({ author: z.string().min(1).max(200), blocks: Blocks });
export type CommunityAnswerInput = z.infer<typeof CommunityAnswerInput>;
export const CommunityAnswerCreated = z.object({ answer_id: z.string() });

export const VisitorParams = z.object({ site_id: z.coerce.number().int().positive(), slug: Slug });
