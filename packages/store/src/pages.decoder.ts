import * as z from 'zod/mini';
import { CommunityAnswer, PAGE_TYPES, PageStatus, type PageDoc } from '@cm/contract';
import { binary, decodeItem, stringSet } from './decode';
import { decodeJson } from './codec';

/* The items of a page: the page item (whole, or as a projection or a listing index holds it) and its parts. */

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

/** A page as the listing indexes project it. */
const PageListingItem = z.extend(PageLiveStateItem, {
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  updated_at: z.string(),
});

const PageItem = z.extend(PageListingItem, {
  type: z.enum(PAGE_TYPES),
  created_at: z.string(),
  version: optionalString,
  chunks: z.optional(z.number()),
  doc: z.optional(binary),
  links_hash: optionalString,
  links_indexed: optionalString,
  /** Held by page items from before link items (links.ts): still read until the page's next publish. */
  links: z.optional(z.array(z.string())),
  suppressed: z.optional(stringSet),
  relinked_at: optionalString,
  summary: optionalString,
  notified_at: optionalString,
  summary_at: optionalString,
});
export type PageItem = z.infer<typeof PageItem>;

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
export const decodePageListing = (item: Item) => decodeItem('page listing', PageListingItem, item);
export const decodePage = (item: Item) => decodeItem('page', PageItem, item);
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

export function decodeAnswer(item: Item): CommunityAnswer {
  const { sk, data } = decodeItem('community answer', AnswerItem, item);
  return decodeItem('community answer', CommunityAnswer, JSON.parse(data), { pk: item.pk, sk });
}

/** A page document from its gzipped bytes (one item's or its chunks' joined). */
export function decodeDoc(bytes: Uint8Array, key: Item): PageDoc {
  const doc = decodeJson(bytes);
  decodeItem('page document', StoredDoc, doc, key);
  return doc as PageDoc;
}
