import { randomUUID } from 'node:crypto';
import { ApiError, type PageType } from '@cm/contract';
import { pageId } from '@cm/core';
import type { PutPage, PutResult, Store, StoredPage } from '@cm/store';

/*
 * Slugs that moved (redirects.ts): where a publish by slug writes, and which page a slug names, when the
 * page at the id the slug derives is not simply the page with that slug.
 */

/** Writes a publish tries before it gives up on slots that keep changing under it. */
const PUT_ATTEMPTS = 3;

/** 409 for a slug that only redirects now (its page was renamed): reserved until its redirect is removed. */
export const slugReserved = (type: PageType, slug: string, holder: string): ApiError =>
  new ApiError(
    'already_exists',
    `The slug ${JSON.stringify(slug)} redirects to the ${type} ${holder}, which was renamed; publish it with its current slug, or remove the redirect (DELETE /${type}s/${holder}/redirects/{slug}) to use this slug for another page`,
    { slug, page_id: holder },
  );

/**
 * A publish's write by slug, the upsert key (spec §4.1 rule 1): at the id the slug derives, as always.
 * Only when that write finds the slug held elsewhere is its slot read, and the page written where the
 * slug belongs: the renamed page whose slug it is now, or, for a slug whose redirect was removed, a new
 * page with an id of its own. A slug that only redirects is refused (409, nothing written).
 */
export async function putBySlug(store: Store, write: Omit<PutPage, 'claim'>): Promise<{ id: string; put: PutResult }> {
  const { siteId, type } = write;
  const slug = write.doc.slug;
  let id = write.id;
  for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
    const put = await store.pages.put({ ...write, id, claim: { slug, atSlot: id === write.id } });
    if (put) return { id, put };
    // The page the slot named has another slug now: the slug redirects to it.
    if (id !== write.id) throw slugReserved(type, slug, id);
    const slot = await store.redirects.slot(siteId, type, slug);
    if (slot.holder === 'page' && slot.slug === null) id = slot.id;
    else if (slot.holder === 'page' && slot.slug !== slug) throw slugReserved(type, slug, slot.id);
    else if (slot.holder === 'freed') {
      // Any id no slug derives (a slug has no line break) and no other page has.
      const fresh = pageId(siteId, type, `${slug}\n${randomUUID()}`);
      if (await store.redirects.claim(siteId, type, slug, fresh)) id = fresh;
    }
  }
  throw slugRaced(slug);
}

/** Another rename or publish moved the slug while this call ran: sent again, it finds where things are. */
export const slugRaced = (slug: string): ApiError =>
  new ApiError('already_exists', `The slug ${JSON.stringify(slug)} changed hands while this ran; send it again`, {
    slug,
  });

/**
 * The page with `slug`: the one at its slot (`atSlot`, as the caller read it) when that page has it, else
 * the page its slot names; `moved` when the slug is only an old slug of that page's. Null: no page.
 */
export async function pageOfSlug(
  store: Store,
  siteId: number,
  type: PageType,
  slug: string,
  atSlot: StoredPage | null,
): Promise<{ page: StoredPage; moved: boolean } | null> {
  if (atSlot?.doc.slug === slug) return { page: atSlot, moved: false };
  const slot = await store.redirects.slot(siteId, type, slug);
  if (slot.holder !== 'page') return null;
  const page = slot.slug === null ? await store.pages.get(siteId, type, slot.id) : atSlot;
  return page ? { page, moved: page.doc.slug !== slug } : null;
}
