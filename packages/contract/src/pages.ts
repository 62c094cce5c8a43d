import * as z from 'zod/mini';
import { Blocks } from './blocks';
import {
  AbsoluteUrl,
  LenientDate,
  HttpUrl,
  PAGE_TYPES,
  PageStatus,
  BodySiteId,
  Slug,
  StringList,
  Timestamp,
  ZonedTimestamp,
  type PageType,
  named,
} from './common';
import { LIMITS } from './limits';
import { Keyword } from './cm-tables';

/** Display titles and questions are short; the cap keeps listings (which carry them) small. */
export const TITLE_MAX = 2000;

/** A category's or topic's name: its section's slug is in the table's keys, so it is bounded (LIMITS.sectionNameMax). */
const SectionName = z.string().check(z.maxLength(LIMITS.sectionNameMax));

/**
 * A source object (spec §2.3, which marks no field required): stored as sent, unknown fields included. A
 * field that is sent must be of its type; one left out or null is reported in `warnings[]`, and a source
 * without an `id` cannot be cited (docs/api.md#sources).
 */
export const Source = named(
  z.looseObject({
    id: z.nullish(z.string()),
    title: z.nullish(z.string()),
    url: z.nullish(AbsoluteUrl),
    accessed_at: z.nullish(LenientDate),
  }),
  { id: 'Source' },
);
export type Source = z.infer<typeof Source>;

/**
 * Fields articles and questions share (spec §2.1, §2.2). An optional field sent as null is taken as left
 * out, so its default applies (docs/api.md#publishing).
 */
const PageInputFields = {
  slug: Slug,
  meta_title: z.nullish(z.string()),
  meta_description: z.nullish(z.string()),
  related_article_ids: z.nullish(StringList),
  related_question_ids: z.nullish(StringList),
  status: z.nullish(PageStatus),
  ai_model: z.nullish(z.string()),
  updated_at: z.nullish(Timestamp),
  site_id: BodySiteId,
  /** When a draft is published, and when the page is taken down (docs/api/publishing.md#pages-on-a-schedule). */
  publish_at: z.nullish(ZonedTimestamp),
  unpublish_at: z.nullish(ZonedTimestamp),
  /** The one query the page is written for: another live page with it is a warning (docs/api/publishing.md#warnings). */
  primary_keyword: z.nullish(Keyword),
};

/** Body of POST /articles (spec §2.1, docs/api.md#articles). Unknown fields, `sources` among them, are dropped. */
export const ArticleInput = named(
  z.object({
    ...PageInputFields,
    title: z.string().check(z.minLength(1), z.maxLength(TITLE_MAX)),
    body: Blocks,
    excerpt: z.nullish(z.string()),
    copy: z.nullish(z.string()),
    keywords: z.nullish(StringList),
    audience: z.nullish(z.union([z.string(), StringList])),
    goal: z.nullish(z.string()),
    category: z.nullish(SectionName),
    cover_image: z.nullish(AbsoluteUrl),
    canonical_url: z.nullish(HttpUrl),
    noindex: z.nullish(z.boolean()),
    schema_type: z.nullish(z.string().check(z.minLength(1))),
    ai_generated: z.nullish(z.boolean()),
  }),
  { id: 'ArticleInput' },
);
export type ArticleInput = z.infer<typeof ArticleInput>;

/** Body of POST /questions (spec §2.2, docs/api.md#questions). A `summary` field is site-owned and dropped. */
export const QuestionInput = named(
  z.object({
    ...PageInputFields,
    question: z.string().check(z.minLength(1), z.maxLength(TITLE_MAX)),
    answer: Blocks,
    sources: z.nullish(z.array(Source)),
    topics: z.nullish(z.array(SectionName)),
  }),
  { id: 'QuestionInput' },
);
export type QuestionInput = z.infer<typeof QuestionInput>;

/** What the editor service owns of an article, defaults applied: replaced whole on every publish. */
export const ArticleDoc = z.object({
  slug: z.string(),
  title: z.string(),
  body: Blocks,
  excerpt: z.nullable(z.string()),
  copy: z.nullable(z.string()),
  keywords: StringList,
  meta_title: z.string(),
  meta_description: z.nullable(z.string()),
  audience: z.nullable(z.union([z.string(), StringList])),
  goal: z.nullable(z.string()),
  category: z.nullable(z.string()),
  cover_image: z.nullable(z.string()),
  canonical_url: z.nullable(z.string()),
  noindex: z.boolean(),
  schema_type: z.string(),
  related_article_ids: StringList,
  related_question_ids: StringList,
  status: PageStatus,
  ai_generated: z.boolean(),
  ai_model: z.nullable(z.string()),
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
  meta_description: z.nullable(z.string()),
  related_question_ids: StringList,
  related_article_ids: StringList,
  status: PageStatus,
  ai_model: z.nullable(z.string()),
  updated_at: z.string(),
});
export type QuestionDoc = z.infer<typeof QuestionDoc>;

export type PageDoc = ArticleDoc | QuestionDoc;

/** A link relink took out of what readers see, while its target is not live: since when (null if not recorded). */
export const SuppressedLink = z.object({
  id: z.string(),
  type: z.enum(PAGE_TYPES),
  since: z.nullable(z.string()),
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
  /** When the page's schedule publishes it, and takes it down; absent or null: none is due. */
  publish_at?: string | null;
  unpublish_at?: string | null;
}

/** What readers can reach: a published page the site has not deleted. */
export const isLive = (status: PageStatus, deleted: boolean): boolean => status === 'published' && !deleted;

/** What lists a site's pages beside its home: a category's articles, or a topic's questions. */
export type SectionKind = 'category' | 'topic';

export interface Section {
  kind: SectionKind;
  /** Its name as one URL segment: letters and digits in lower case, runs of anything else as one `-`. */
  slug: string;
}

/** A section a page is listed in, with its name as the page sent it (the section page's heading). */
export interface NamedSection extends Section {
  name: string;
}

/** What the site's listing pages, sitemaps and feed show of a page, decided at its publish. */
export interface PageCard {
  /** Its meta description, else about 200 characters of its first words; null when it has no text. */
  card_text: string | null;
  category: string | null;
  noindex: boolean;
  canonical_url: string | null;
  /** Its category's page (an article), or its topics' pages (a question), the first `topicsListedMax`. */
  sections: NamedSection[];
}

/**
 * A live page as the site's listing pages, sitemaps and feed show it (from the index of live pages):
 * what its card shows, and what its sitemap entry says.
 */
export interface ListedPage {
  id: string;
  type: PageType;
  slug: string;
  /** An article's title or a question's question. */
  title: string;
  /** A sentence or two of it for its card: its meta description, else its first words. */
  card_text: string | null;
  category: string | null;
  /** Its first publish: listings are newest first by it. */
  created_at: string;
  /** When what readers see of it last changed (its sitemap entry's lastmod). */
  visible_at: string;
  noindex: boolean;
  canonical_url: string | null;
}

/** A page's schedule as replies report it: present only while a change is due. */
const PageScheduleFields = {
  publish_at: z.optional(z.string().check(z.meta({ description: 'When the schedule publishes this draft (UTC).' }))),
  unpublish_at: z.optional(
    z.string().check(z.meta({ description: 'When the schedule takes this page down to a draft (UTC).' })),
  ),
};

const PageMeta = {
  id: z.string(),
  revision: z.optional(z.string()).check(
    z.meta({
      description:
        "The live revision's id (GET /articles/{id} and /questions/{id}): a publish that changes the page keeps this one as a revision",
    }),
  ),
  site_id: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
  live: z.boolean().check(z.meta({ description: 'Whether readers can reach the page now.' })),
  deleted: z.boolean().check(z.meta({ description: 'The site reported the page deleted (visitors get 410).' })),
  suppressed_links: z.array(SuppressedLink).check(
    z.meta({
      description:
        'Links of this page that readers do not see while their target is not live; the document above is as sent.',
    }),
  ),
  relinked_at: z
    .nullable(z.string())
    .check(z.meta({ description: 'When relink last changed what readers see of this page.' })),
  ...PageScheduleFields,
};

export const CommunityAnswer = z.object({
  answer_id: z.string(),
  author: z.string(),
  blocks: Blocks,
  created_at: z.string(),
});
export type CommunityAnswer = z.infer<typeof CommunityAnswer>;

export const ArticleRecord = named(z.extend(ArticleDoc, { ...PageMeta, type: z.literal('article') }), {
  id: 'Article',
});
export type ArticleRecord = z.infer<typeof ArticleRecord>;

export const QuestionRecord = named(
  z.extend(QuestionDoc, {
    ...PageMeta,
    type: z.literal('question'),
    summary: z.nullable(z.string()).check(z.meta({ description: 'Site-owned; never written by a publish.' })),
    community_answers: z.array(CommunityAnswer),
  }),
  { id: 'Question' },
);
export type QuestionRecord = z.infer<typeof QuestionRecord>;

export type PageRecord = ArticleRecord | QuestionRecord;

export const PublishWarning = z.object({
  path: z.string(),
  message: z.string(),
  /** The other page a warning names (another live page with the same primary keyword). */
  page: z.optional(z.object({ id: z.string(), type: z.enum(PAGE_TYPES), slug: z.string(), url: z.string() })),
});
export type PublishWarning = z.infer<typeof PublishWarning>;

export const PublishResult = named(
  z.object({
    id: z.string().check(z.meta({ description: "The site's id for the page, stable for the life of the slug." })),
    type: z.enum(['article', 'question']),
    slug: z.string(),
    status: PageStatus,
    created: z.boolean(),
    updated_at: z.string(),
    url: z.string().check(z.meta({ description: 'The visitor page.' })),
    warnings: z.array(PublishWarning),
    ...PageScheduleFields,
  }),
  { id: 'PublishResult' },
);
export type PublishResult = z.infer<typeof PublishResult>;

export const PageListQuery = z.object({
  slug: z.optional(Slug),
  limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(200)), 50),
  cursor: z.optional(z.string().check(z.minLength(1))),
  status: z.optional(PageStatus),
  suppressed_links: z.optional(z.enum(['true', 'false'])).check(
    z.meta({
      description:
        "true: each item also lists the page's links relink keeps from readers (one more read of the listed pages)",
    }),
  ),
});
export type PageListQuery = z.infer<typeof PageListQuery>;

export const PageListItem = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.optional(z.string()),
  question: z.optional(z.string()),
  status: PageStatus,
  live: z.boolean(),
  deleted: z.boolean(),
  updated_at: z.string(),
  url: z.string().check(z.meta({ description: 'The visitor page.' })),
  suppressed_links: z
    .optional(z.array(SuppressedLink))
    .check(z.meta({ description: 'With suppressed_links=true: as on the page itself.' })),
});
export type PageListItem = z.infer<typeof PageListItem>;

export const PageList = named(z.object({ items: z.array(PageListItem), next_cursor: z.nullable(z.string()) }), {
  id: 'PageList',
});
export type PageList = z.infer<typeof PageList>;

export const PageIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(100)) });

export const SummaryInput = z.object({ summary: z.nullable(z.string()) });
export const CommunityAnswerInput = z.object({
  author: z.string().check(z.minLength(1), z.maxLength(200)),
  blocks: Blocks,
});
export type CommunityAnswerInput = z.infer<typeof CommunityAnswerInput>;
export const CommunityAnswerCreated = z.object({ answer_id: z.string() });

/** A host name as the edge passes it on: lower case, no port. */
const Host = z.string().check(z.regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/));

/** The site a reader's request names: by id (`/sites/{site_id}`) or by its own domain (`/domains/{host}`). */
export const SiteRootParams = z.object({
  site_id: z.optional(z.coerce.number().check(z.int(), z.positive())),
  host: z.optional(Host),
});

export const VisitorParams = z.extend(SiteRootParams, { slug: Slug });
/** A category's or topic's page: its name as one segment (docs/api.md#listing-pages). */
/** A section's slug: lowercasing can make one character of a name two (`İ`: `i̇`), so twice a name's limit. */
export const SectionParams = z.extend(SiteRootParams, {
  section: z.string().check(z.minLength(1), z.maxLength(2 * LIMITS.sectionNameMax)),
});
export const SitemapParams = z.extend(SiteRootParams, { sitemap: z.string().check(z.maxLength(40)) });
/** Where a listing page starts: a cursor from its newer page's link. */
export const ListingQuery = z.object({ before: z.optional(z.string().check(z.minLength(1), z.maxLength(400))) });
