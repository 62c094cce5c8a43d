import * as z from 'zod/mini';
import { CommunityAnswer, isLive, PAGE_TYPES, PageStatus, type ListedPage, type PageDoc } from '@cm/contract';
import { binary, decodeItem, stringSet } from './decode';
import { decodeJson } from './codec';
import { KeptDocs } from './kept-docs';

/* The items of a page: the page item (whole, or as a projection or an index has it) and its parts. */

const optionalString = z.optional(z.string());

/** What every read of a page item has: its live state. */
const PageLiveStateItem = z.looseObject({
  status: PageStatus,
  deleted: z.optional(z.boolean()),
  site_clock: optionalString,
  relink_pending: optionalString,
});
export type PageLiveStateItem = z.infer<typeof PageLiveStateItem>;

/** What a notify's write answers of the page before it (UpdateItem's UPDATED_OLD: the attributes it set that existed). */
const NotifiedOldItem = z.looseObject({
  status: z.optional(PageStatus),
  deleted: z.optional(z.boolean()),
  relink_pending: optionalString,
});

/** A page item as the list indexes (gsi1 by updated, gsi2 by status) project it: a row of a page list. */
const PageListIndexItem = z.extend(PageLiveStateItem, {
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  updated_at: z.string(),
});

/** A page's own item, whole: the stored page (its doc, inline or in chunks) and its bookkeeping. */
const PageItem = z.extend(PageListIndexItem, {
  type: z.enum(PAGE_TYPES),
  created_at: z.string(),
  version: optionalString,
  chunks: z.optional(z.number()),
  doc: z.optional(binary),
  links_hash: optionalString,
  links_indexed: optionalString,
  /** The content's hash (PublishWrite), from the publish that wrote it: none before it was kept. */
  content_hash: optionalString,
  /** When its publish was stored (with the content's hash, the live revision's id: revisions.ts). */
  stored_at: optionalString,
  /** Held by page items from before link items (links.ts): still read until the page's next publish. */
  links: z.optional(z.array(z.string())),
  suppressed: z.optional(stringSet),
  relinked_at: optionalString,
  summary: optionalString,
  notified_at: optionalString,
  summary_at: optionalString,
  /** The sort key of the page in the index of live pages and its sections (its first publish and id). */
  listing_sk: optionalString,
  month_pk: optionalString,
  /** The sections (`kind/slug`) it is listed in, and the hash of those its section items have. */
  sections: z.optional(z.array(z.string())),
  sections_hash: optionalString,
  sections_indexed: optionalString,
  /** Its schedule's changes still due (docs/api/publishing.md#pages-on-a-schedule). */
  publish_at: optionalString,
  unpublish_at: optionalString,
  /** The primary keyword its publish named (primary-keywords.ts). */
  primary_keyword: optionalString,
});
export type PageItem = z.infer<typeof PageItem>;

/** A live page as the index of live pages has it, or a page item read for its card. */
const ListedPageItem = z.looseObject({
  id: z.string(),
  type: z.enum(PAGE_TYPES),
  slug: z.string(),
  title: z.string(),
  card_text: optionalString,
  category: optionalString,
  created_at: z.string(),
  visible_at: optionalString,
  notified_at: optionalString,
  noindex: z.optional(z.boolean()),
  canonical_url: optionalString,
});

/** A page item read for a section's listing: its card, its live state, and the sections it is in. */
const SectionPageItem = z.extend(ListedPageItem, {
  status: PageStatus,
  deleted: z.optional(z.boolean()),
  sections: z.optional(z.array(z.string())),
});

/** A section's item: the page it lists, and the section's name as that page sent it. */
const RegisteredSectionItem = z.looseObject({ kind: z.enum(['category', 'topic']), slug: z.string() });
const SectionMemberItem = z.looseObject({ sk: z.string(), type: z.enum(PAGE_TYPES), id: z.string(), name: z.string() });

const LinkTargetItem = z.extend(PageLiveStateItem, {
  id: z.string(),
  type: z.enum(PAGE_TYPES),
  slug: z.string(),
  title: z.string(),
  notified_at: optionalString,
});

/** A page item read for its suppressed links: the set, or the times of some of them (by attribute name). */
const SuppressedItem = z.looseObject({ id: z.string(), suppressed: z.optional(stringSet) });

const ChunkItem = z.looseObject({ sk: z.string(), data: binary });
const AnswerItem = z.looseObject({ sk: z.string(), data: z.string() });

/** A stored page document: checked for the fields the store and listings rely on (a whole-document parse would cost a large page's every read). */
const StoredDoc = z.looseObject({ slug: z.string(), status: PageStatus, updated_at: z.string() });

type Item = Record<string, unknown>;

export const decodePageLiveState = (item: Item, key?: Item) => decodeItem('page', PageLiveStateItem, item, key);
export const decodeNotifiedOld = (item: Item, key: Item) => decodeItem('page', NotifiedOldItem, item, key);
export const decodePageListIndexItem = (item: Item) => decodeItem('page listing', PageListIndexItem, item);
export const decodePage = (item: Item) => decodeItem('page', PageItem, item);
/** A page item read for the pages that hold a primary keyword: its card's names, live state and keyword. */
const KeywordHolderItem = z.extend(PageLiveStateItem, {
  id: z.string(),
  type: z.enum(PAGE_TYPES),
  slug: z.string(),
  primary_keyword: optionalString,
});
export const decodeKeywordHolder = (item: Item) => decodeItem('page', KeywordHolderItem, item);
/** A primary keyword's item (keys.ts primaryKeywordKey): the page that names it. */
const KeywordMemberItem = z.looseObject({ type: z.enum(PAGE_TYPES), id: z.string() });
export function decodeKeywordMember(item: Item) {
  const { type, id } = decodeItem('primary keyword', KeywordMemberItem, item);
  return { type, id };
}
export const decodeLinkTarget = (item: Item, key?: Item) => decodeItem('page', LinkTargetItem, item, key);
export const decodeSuppressed = (item: Item, key?: Item) => decodeItem('page', SuppressedItem, item, key);
/** Whether an item at a page's key is a page, not only the mark pages linking to it left before it was published. */
export const isPageItem = (item: Item): boolean => 'status' in item;

/** What a publish's write answers of the item it replaced: a page, or only the mark pages linking to it left. */
export function decodePutOld(item: Item | undefined): { page: PageItem | undefined; awaited: boolean } {
  if (!item) return { page: undefined, awaited: false };
  if (isPageItem(item)) return { page: decodePage(item), awaited: false };
  return { page: undefined, awaited: typeof item.awaited_at === 'string' };
}
export const decodeChunk = (item: Item) => decodeItem('page chunk', ChunkItem, item);
export function decodeRegisteredSection(item: Item) {
  const { kind, slug } = decodeItem('section', RegisteredSectionItem, item);
  return { kind, slug };
}
export const decodeSectionMember = (item: Item) => decodeItem('section item', SectionMemberItem, item);

/** A page item read for a section's listing: its card, whether it is live, and the sections it is in. */
export function decodeSectionPage(item: Item): { page: ListedPage; live: boolean; sections: string[] } {
  const decoded = decodeItem('page', SectionPageItem, item);
  return {
    page: listedPageOf(decoded),
    live: isLive(decoded.status, decoded.deleted === true),
    sections: decoded.sections ?? [],
  };
}

/** A page of the index of live pages as listings show it. */
export const decodeListedPage = (item: Item): ListedPage => listedPageOf(decodeItem('live page', ListedPageItem, item));

function listedPageOf(item: z.infer<typeof ListedPageItem>): ListedPage {
  return {
    id: item.id,
    type: item.type,
    slug: item.slug,
    title: item.title,
    card_text: item.card_text ?? null,
    category: item.category ?? null,
    created_at: item.created_at,
    // Pages published before it was kept: their last publish or notify.
    visible_at: item.visible_at ?? item.notified_at ?? item.created_at,
    noindex: item.noindex === true,
    canonical_url: item.canonical_url ?? null,
  };
}

export function decodeAnswer(item: Item): CommunityAnswer {
  const { sk, data } = decodeItem('community answer', AnswerItem, item);
  return decodeItem('community answer', CommunityAnswer, JSON.parse(data), { pk: item.pk, sk });
}

const keptDocs = new KeptDocs<PageDoc>();

/** A page document from its gzipped bytes (one item's or its chunks' joined), read from the item at `key`. */
export function decodeDoc(bytes: Uint8Array, key: Item): PageDoc {
  return keptDocs.get(`${String(key.pk)} ${String(key.sk)}`, bytes, (stored) => {
    const doc = decodeJson(stored);
    decodeItem('page document', StoredDoc, doc, key);
    return doc as PageDoc;
  });
}
