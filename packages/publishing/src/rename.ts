import { ApiError, LIMITS, notFound, type PageRedirects, type PageType } from '@cm/contract';
import { pageTypeOfId, pageUrl } from '@cm/core';
import type { Store } from '@cm/store';
import type { PublishingContext } from './context';
import { announceUrlsOf } from './indexnow';
import { slugRaced, slugReserved } from './slugs';

/*
 * Renaming a page (docs/api/publishing.md#renaming-a-page): the page keeps its id and moves to a new
 * slug; each old slug answers 301 to its current URL and stays reserved until its redirect is removed.
 */

/** The page's slug and the old slugs that redirect to it; 404 when the site has no such page. */
async function redirectsOf(store: Store, siteId: number, type: PageType, id: string) {
  const page = pageTypeOfId(id) === type ? await store.redirects.redirectsOf(siteId, type, id) : null;
  if (!page) throw notFound(`No ${type} with id ${id}`);
  return page;
}

const reply = (
  type: PageType,
  id: string,
  page: { slug: string; redirects: readonly string[] },
  siteRoot: string,
): PageRedirects => ({
  id,
  type,
  slug: page.slug,
  url: pageUrl(siteRoot, type, page.slug),
  redirects: page.redirects.map((slug) => ({ slug, url: pageUrl(siteRoot, type, slug) })),
});

/** The page's slug and its redirects (`GET /articles/{id}/redirects`). */
export async function pageRedirects(
  store: Store,
  siteId: number,
  page: { type: PageType; id: string },
  siteRoot: string,
): Promise<PageRedirects> {
  return reply(page.type, page.id, await redirectsOf(store, siteId, page.type, page.id), siteRoot);
}

/**
 * Moves the page to `to` (`POST /articles/{id}/rename`): what readers reach changes here, and only here:
 * the page at `to`, its old URL a redirect there. Everything that shows the page's URL (its canonical
 * URL, the sitemaps, the feed, listings, related cards and the links of the pages linking to it) reads
 * its slug from its item, so they follow with no relink. Renaming to the current slug changes nothing.
 */
export async function renamePage(
  ctx: PublishingContext,
  siteId: number,
  page: { type: PageType; id: string },
  to: string,
  options: { siteRoot: string; now?: Date },
): Promise<PageRedirects> {
  const { store } = ctx;
  const { type, id } = page;
  const current = await redirectsOf(store, siteId, type, id);
  if (current.slug === to) return reply(type, id, current, options.siteRoot);
  const redirects = [...current.redirects.filter((slug) => slug !== to), current.slug].sort();
  if (redirects.length > LIMITS.redirectsPerPage)
    throw new ApiError(
      'redirect_limit_reached',
      `This ${type} already has ${LIMITS.redirectsPerPage} old slugs that redirect to it; remove one (DELETE /${type}s/${id}/redirects/{slug}) before renaming it again`,
      { limit: LIMITS.redirectsPerPage },
    );
  if (!(await store.redirects.claim(siteId, type, to, id))) throw await slugTaken(store, siteId, type, to);
  const at = options.now ?? new Date();
  const now = at.toISOString();
  if (!(await store.redirects.moveSlug(siteId, page, { from: current.slug, to, now }))) throw slugRaced(to);
  await announceUrlsOf(ctx, siteId, { type, id, slugs: [current.slug, to] }, options.siteRoot, at);
  return reply(type, id, { slug: to, redirects }, options.siteRoot);
}

/** Why another page holds `slug`: it is that page's slug now, or one that redirects to it. */
async function slugTaken(store: Store, siteId: number, type: PageType, slug: string): Promise<ApiError> {
  const slot = await store.redirects.slot(siteId, type, slug);
  if (slot.holder !== 'page') return slugRaced(slug);
  const current = slot.slug ?? (await store.redirects.redirectsOf(siteId, type, slot.id))?.slug;
  if (current !== slug) return slugReserved(type, slug, slot.id);
  return new ApiError('already_exists', `The slug ${JSON.stringify(slug)} is the ${type} ${slot.id}'s`, {
    slug,
    page_id: slot.id,
  });
}

/**
 * Removes the redirect of an old slug of the page (`DELETE /articles/{id}/redirects/{slug}`): the old URL
 * answers 404 and the slug is free for any publish or rename. 404 when it is no redirect of the page's.
 */
export async function removeRedirect(
  ctx: PublishingContext,
  siteId: number,
  page: { type: PageType; id: string },
  slug: string,
  siteRoot: string,
): Promise<PageRedirects> {
  const { store } = ctx;
  const { type, id } = page;
  const current = await redirectsOf(store, siteId, type, id);
  if (!(await store.redirects.unreserve(siteId, page, slug, current.slug)))
    throw notFound(`The slug ${JSON.stringify(slug)} does not redirect to the ${type} ${id}`);
  // Its old URL answered 301; now 404.
  await announceUrlsOf(ctx, siteId, { type, id, slugs: [slug] }, siteRoot);
  return reply(type, id, { slug: current.slug, redirects: current.redirects.filter((s) => s !== slug) }, siteRoot);
}
