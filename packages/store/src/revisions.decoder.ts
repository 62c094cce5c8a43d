import * as z from 'zod/mini';
import { PageStatus } from '@cm/contract';
import { binary, decodeItem } from './decode';

/* A page's revisions: the page item a publish replaced, as its write answered it, and the revision items kept of it. */

const optionalString = z.optional(z.string());

/**
 * What names a page's version as a revision: when its publish was stored and its content's hash, or for a
 * version from before revisions were kept, its `version`.
 */
const VersionItem = z.looseObject({ version: z.string(), content_hash: optionalString, stored_at: optionalString });
export type VersionItem = z.infer<typeof VersionItem>;

/** What a revision is made of, of the page item a publish replaced (UpdateItem's ALL_OLD). */
const ReplacedItem = z.extend(VersionItem, {
  slug: z.string(),
  title: z.string(),
  updated_at: z.string(),
  chunks: z.optional(z.number()),
  doc: z.optional(binary),
});
export type ReplacedItem = z.infer<typeof ReplacedItem>;

/** A revision's item as a listing reads it (the document left out), and whole. */
const RevisionHead = z.looseObject({
  revision_id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: PageStatus,
  updated_at: z.string(),
  ai_model: z.nullable(z.string()),
  stored_at: z.nullable(z.string()),
  replaced_at: z.string(),
  chunks: z.number(),
  expires_at: z.number(),
});
const RevisionItem = z.extend(RevisionHead, { doc: z.optional(binary) });
export type RevisionHead = z.infer<typeof RevisionHead>;

/** A revision's key and its chunk count, as pruning reads them. */
const RevisionKeyItem = z.looseObject({ sk: z.string(), chunks: z.number() });

/** A page item read for its live revision and slug. */
const LiveItem = z.extend(VersionItem, { slug: z.string(), updated_at: z.string() });

const ChunkItem = z.looseObject({ data: binary });

type Item = Record<string, unknown>;

export const decodeReplaced = (item: Item) => decodeItem('page', ReplacedItem, item);
export const decodeRevisionHead = (item: Item) => decodeItem('revision', RevisionHead, item);
export const decodeRevision = (item: Item) => decodeItem('revision', RevisionItem, item);
export const decodeRevisionKey = (item: Item) => decodeItem('revision', RevisionKeyItem, item);
export const decodeVersion = (item: Item) => decodeItem('page', VersionItem, item);
export const decodeLive = (item: Item) => decodeItem('page', LiveItem, item);
export const decodeChunkData = (item: Item) => decodeItem('chunk', ChunkItem, item).data;
