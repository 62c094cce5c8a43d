import { notFound, type PageType, type RevisionList, type RevisionListQuery } from '@cm/contract';
import { isArticleDoc, pageTypeOfId } from '@cm/core';
import { contentHash } from '@cm/core';
import type { Store, StoredRevision } from '@cm/store';
import type { PublishInput } from './publish';

/*
 * A page's revisions (docs/api/publishing.md#revisions): the versions its publishes replaced, and a
 * rollback to one, which is a publish of it (relink, listings, sitemaps and the feed follow).
 */

type PageRef = { type: PageType; id: string };

/** The page's live revision and slug, else `404` naming it as the caller did. */
async function livePage(store: Store, siteId: number, page: PageRef) {
  const live = pageTypeOfId(page.id) === page.type ? await store.revisions.live(siteId, page) : null;
  if (!live) throw notFound(`No ${page.type} with id ${page.id}`);
  return live;
}

/** A page of the page's revisions, newest first, with its live revision; `404` for no such page. */
export async function listRevisions(
  store: Store,
  siteId: number,
  page: PageRef,
  query: RevisionListQuery,
  now = new Date(),
): Promise<RevisionList> {
  const at = now.toISOString();
  const [live, listing] = await Promise.all([
    livePage(store, siteId, page),
    store.revisions.list(siteId, page, { limit: query.limit, cursor: query.cursor, now: at }),
  ]);
  return {
    live_revision: live.revision,
    items: listing.items.map(({ chunks: _chunks, expires_at, ...revision }) => ({
      ...revision,
      expires_at: new Date(expires_at * 1000).toISOString(),
    })),
    next_cursor: listing.next_cursor,
  };
}

/**
 * The publish that brings a revision back: its document at the page's slug now, updated now; or, when
 * that is the live content already (a repeated rollback), with the live `updated_at`, so it changes nothing.
 */
function republishOf(
  revision: StoredRevision,
  live: { slug: string; updated_at: string; content_hash: string | null },
) {
  const doc = { ...revision.doc, slug: live.slug };
  const updated_at = contentHash(doc) === live.content_hash ? live.updated_at : null;
  const input: PublishInput = isArticleDoc(doc)
    ? { type: 'article', value: { ...doc, updated_at } }
    : { type: 'question', value: { ...doc, updated_at } };
  return input;
}

/**
 * A rollback (docs/api/publishing.md#revisions): the publish of one of the page's revisions, so the version
 * it replaces is kept as a revision, and a repeat (the content is the live one's then) keeps none.
 * `404` for no such page or revision.
 */
export async function revisionToPublish(
  store: Store,
  siteId: number,
  type: PageType,
  revision: { id: string; revision_id: string },
  now = new Date(),
): Promise<PublishInput> {
  const page = { type, id: revision.id };
  const live = await livePage(store, siteId, page);
  const stored = await store.revisions.get(siteId, page, revision.revision_id, now.toISOString());
  if (!stored) throw notFound(`No revision ${revision.revision_id} of ${type} ${revision.id}`);
  return republishOf(stored, live);
}
