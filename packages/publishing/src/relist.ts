import { PAGE_TYPES } from '@cm/contract';
import { pageCard } from '@cm/core';
import { mapLimit, type Store } from '@cm/store';

/** Pages read and relisted at once. */
const PARALLEL = 10;
/** Pages per listing read. */
const PAGE = 100;

/**
 * Puts every page of a site published before listings were kept into them (its home, sections,
 * sitemaps and feed), as each page's next publish would (`npm run sites -- relist`, once per site after
 * the upgrade; docs/operations.md). A page listed already is left as it is, so a rerun changes nothing.
 * It walks one site's pages through the listing index, 100 at a time.
 */
export async function relistSite(store: Store, siteId: number): Promise<{ pages: number; relisted: number }> {
  let pages = 0;
  let relisted = 0;
  for (const type of PAGE_TYPES) {
    let cursor: string | undefined;
    do {
      const listing = await store.pageListings.list(siteId, type, { limit: PAGE, ...(cursor ? { cursor } : {}) });
      const done = await mapLimit(listing.items, PARALLEL, async (item) => {
        const page = await store.pages.get(siteId, type, item.id);
        return page ? store.pageListings.relist(siteId, page, pageCard(page.doc)) : false;
      });
      pages += listing.items.length;
      relisted += done.filter(Boolean).length;
      cursor = listing.next_cursor ?? undefined;
    } while (cursor);
  }
  return { pages, relisted };
}
