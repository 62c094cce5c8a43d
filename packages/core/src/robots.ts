import { ROUTE_TABLE } from '@cm/contract';

/*
 * robots.txt (RFC 9309) of the API's host: crawlers may read the sites' pages and files served under it
 * (`/sites/…`) and nothing else. A site's own domain has a robots.txt of its own (site-files.ts); its
 * pages' copies under `/domains/…` here are never linked, and name the domain's URLs as canonical.
 */

/** A route's first path segment, the prefix robots.txt names: `/v1/tools/{name}` → `/v1/`, `/health` → `/health`. */
const prefixOf = (path: string): string => {
  const next = path.indexOf('/', 1);
  return next === -1 ? path : path.slice(0, next + 1);
};

/** Paths crawlers may read besides the visitor pages: the icon search results show beside a site. */
export const CRAWLABLE_PATHS = ['/favicon.ico'];

/** The prefix of the sites' pages and files under the API's host. */
export const SITES_PREFIX = '/sites/';

/**
 * The host's robots.txt, from the route table so that a new route is covered the day it is added: the
 * sites' prefix and the icon are allowed, every other route's prefix (the API, MCP, the dashboard, the
 * domains' copies) disallowed.
 */
export function robotsTxt(): string {
  const open = new Set([SITES_PREFIX, ...CRAWLABLE_PATHS]);
  const prefixes = [...new Set(ROUTE_TABLE.map((route) => prefixOf(route.path)))].filter(
    (prefix) => !open.has(prefix) && prefix !== '/robots.txt',
  );
  // A rule matches by prefix: `/articles` covers `/articles/`.
  const closed = prefixes.filter((p) => !prefixes.some((q) => q !== p && p.startsWith(q))).sort();
  return [
    'User-agent: *',
    ...[...open].sort().map((p) => `Allow: ${p}`),
    ...closed.map((p) => `Disallow: ${p}`),
    '',
  ].join('\n');
}
