import { ListingQuery, SectionParams, SiteRootParams, VisitorParams, type PageType } from '@cm/contract';
import type { Store } from '@cm/store';
import { listingPage, type ListingView } from './listings';
import type { SiteRef } from './served-sites';
import { notFoundPage, visitorPage, type VisitorPage } from './visitor';

/** What a visitor route serves: a page of a type, a listing, or (any other path under a domain) no page. */
export type VisitorRoute = PageType | 'home' | 'questions' | 'category' | 'topic' | 'no-page';

/** A reader's request as the edge passes it on: its path parameters and query string, not yet decoded. */
export interface ReaderRequest {
  path: unknown;
  query: unknown;
  /** Its path had a slash at the end (API Gateway routes it as the path without). */
  trailingSlash?: boolean;
}

/** The site a reader's path names, by id or by its own domain, or null when it names none. */
const siteRefOf = ({ site_id: siteId, host }: { site_id?: number; host?: string }): SiteRef | null =>
  siteId !== undefined ? { siteId } : host !== undefined ? { host } : null;

/** The listing a listing route shows: a section's by the name in its path, or null when the path has none. */
function listingViewOf(route: 'home' | 'questions' | 'category' | 'topic', path: unknown): ListingView | null {
  if (route === 'home' || route === 'questions') return { kind: route };
  const params = SectionParams.safeParse(path);
  return params.success ? { kind: route, slug: params.data.section } : null;
}

/**
 * The visitor page a reader's request names (docs/api.md#visitor-pages): its path (the site by id or by
 * domain, a page's slug or a section's name) and query (a listing's cursor) are decoded here, and what
 * they do not name is the 404 page, of the site the path names if any: a reader gets a page, never the
 * API's validation error.
 */
export async function requestedPage(
  store: Store,
  pagesBaseUrl: string,
  route: VisitorRoute,
  request: ReaderRequest,
): Promise<VisitorPage> {
  // A page's path is decoded once, site and slug together; only a path it does not fit is decoded again for its site.
  const page = route === 'article' || route === 'question' ? VisitorParams.safeParse(request.path) : null;
  const params = page?.success ? page : SiteRootParams.safeParse(request.path);
  const ref = params.success ? siteRefOf(params.data) : null;
  const notFound = () => notFoundPage(store, pagesBaseUrl, ref);
  if (route === 'no-page' || !ref) return notFound();
  if (route === 'article' || route === 'question')
    return page?.success
      ? visitorPage(store, pagesBaseUrl, ref, route, page.data.slug, request.trailingSlash)
      : notFound();
  const query = ListingQuery.safeParse(request.query);
  const view = listingViewOf(route, request.path);
  // The home's own URL is the one that ends with a slash.
  return view && query.success
    ? listingPage(store, pagesBaseUrl, ref, view, query.data.before, route !== 'home' && request.trailingSlash)
    : notFound();
}
