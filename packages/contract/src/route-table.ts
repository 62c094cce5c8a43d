import type { FunctionName } from './functions';
import { SERVICE_LIMITS } from './limits';
import { TOOL_NAMES, toolFunction } from './tool-heads';

// The function names are the route table's and the tool registry's both; they live below both.
export { FUNCTIONS, WORKERS, functionEnvName, queueUrlEnvName, type FunctionName, type WorkerName } from './functions';

/*
 * The route table's facts a function reads at run time: which function serves a route, whether it
 * takes the API key, and its body limit. No schemas live here: a function's bundle then carries only
 * the schemas it parses with, not every route's (the bundle report shows what that saves).
 * routes.ts adds each route's documentation (summary, body, query and reply schemas) for the OpenAPI
 * document, and refuses to load if a route lacks it.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const MCP_PATH = '/mcp';

/**
 * The MCP endpoint that advertises OAuth (docs/api.md#oauth): the same server as MCP_PATH, which takes
 * the API key and never answers an OAuth challenge, for hosts that drop a configured key once they see
 * OAuth metadata.
 */
export const MCP_OAUTH_PATH = '/mcp/oauth';

/**
 * The header CloudFront adds to every request it sends to the API and the streaming endpoint, with
 * the deployment's origin secret (`ORIGIN_VERIFY`): a request without it did not pass WAF, and is
 * refused `403 edge_required` before any work.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * Largest publish body, in bytes of JSON (docs/api.md#limits-this-service-adds): a 1 MiB `copy` and its
 * blocks fit, and the Lambda event that carries it stays under Lambda's 6 MB synchronous payload.
 */
export const PUBLISH_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

export interface RouteFacts {
  fn: FunctionName;
  method: HttpMethod;
  path: string;
  auth: boolean;
  /** The largest body the route takes, in bytes; {@link bodyLimitOf} gives every route's. */
  bodyLimitBytes?: number;
}

export const routeKey = (r: Pick<RouteFacts, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/**
 * A route's path as API Gateway matches it: a `{name}` is one segment, a `{name+}` the rest of the path,
 * slashes and all; with the names in order, and whether one is greedy.
 */
export function routePattern(path: string): { pattern: RegExp; names: string[]; greedy: boolean } {
  const names: string[] = [];
  let greedy = false;
  const source = path
    .replace(/[.*?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{(\w+)(\+?)\\?\}/g, (_m, name: string, plus: string) => {
      names.push(name);
      greedy ||= plus === '+';
      return plus === '+' ? '(.+)' : '([^/]+)';
    });
  return { pattern: new RegExp(`^${source}$`), names, greedy };
}

/**
 * GET routes answer HEAD too, as HTTP clients expect (RFC 9110 §9.3.2): the same status and headers, no
 * body. The MCP endpoint's GET is a stream, not a document, so it does not.
 */
export const answersHead = (route: Pick<RouteFacts, 'method' | 'path'>): boolean =>
  route.method === 'GET' && route.path !== MCP_PATH && route.path !== MCP_OAUTH_PATH;

/** The route key a request is served as: a HEAD request as its GET route. */
export const servedRouteKey = (key: string): string => (key.startsWith('HEAD ') ? `GET ${key.slice(5)}` : key);

/** The largest body `route` takes, in bytes: its own limit, else the service's. */
export const bodyLimitOf = (route: Pick<RouteFacts, 'bodyLimitBytes'> | undefined): number =>
  route?.bodyLimitBytes ?? SERVICE_LIMITS.requestBodyBytes;

/**
 * Where a site's pages are served: under the deployment's address by the site's id, and at the site's
 * own domain, which the edge passes on as `/domains/<domain>/<path>` (docs/api.md#the-sites-own-domain).
 */
export const SITE_ROOTS = ['/sites/{site_id}', '/domains/{host}'] as const;

/** A site's pages and files below its root, and the function that serves each. */
const SITE_PATHS: readonly { fn: FunctionName; path: string }[] = [
  // Its home (API Gateway matches the path with a slash at the end the same).
  { fn: 'visitor', path: '' },
  { fn: 'visitor', path: '/articles/{slug}' },
  { fn: 'visitor', path: '/questions/{slug}' },
  { fn: 'visitor', path: '/questions' },
  { fn: 'visitor', path: '/categories/{section}' },
  { fn: 'visitor', path: '/topics/{section}' },
  { fn: 'site-files', path: '/sitemap.xml' },
  { fn: 'site-files', path: '/sitemaps/{sitemap}' },
  { fn: 'site-files', path: '/feed.xml' },
];

/**
 * What only a site's own domain has at its root: its robots.txt and icon, and a reader's 404 page for any
 * other path (the most specific route wins, so this one takes only what no other does).
 */
const DOMAIN_PATHS: readonly { fn: FunctionName; path: string }[] = [
  { fn: 'site-files', path: '/robots.txt' },
  { fn: 'site-files', path: '/favicon.ico' },
  // Its IndexNow key file (`/<key>.txt`); any other one-segment path there answers the 404 page too.
  { fn: 'site-files', path: '/{file}' },
  { fn: 'visitor', path: '/{proxy+}' },
];

const SITE_ROUTES: readonly RouteFacts[] = [
  ...SITE_ROOTS.flatMap((root) =>
    SITE_PATHS.map(({ fn, path }): RouteFacts => ({ fn, method: 'GET', path: `${root}${path}`, auth: false })),
  ),
  ...DOMAIN_PATHS.map(({ fn, path }): RouteFacts => ({
    fn,
    method: 'GET',
    path: `/domains/{host}${path}`,
    auth: false,
  })),
];

/** Where each page type's API routes are. */
const PAGE_TYPE_PATHS = ['/articles', '/questions'] as const;

/**
 * Every HTTP route and the Lambda function that serves it. The CDK stack, the local server and the
 * OpenAPI document (through ROUTES) are all built from this table, so they cannot drift apart.
 */
export const ROUTE_TABLE: readonly RouteFacts[] = [
  { fn: 'discovery', method: 'GET', path: '/health', auth: false },
  { fn: 'discovery', method: 'GET', path: '/robots.txt', auth: false },
  { fn: 'discovery', method: 'GET', path: '/favicon.ico', auth: false },
  { fn: 'discovery', method: 'GET', path: '/openapi.json', auth: false },
  { fn: 'publish', method: 'POST', path: '/articles', auth: true, bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES },
  { fn: 'publish', method: 'POST', path: '/questions', auth: true, bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES },
  { fn: 'read', method: 'GET', path: '/articles', auth: true },
  { fn: 'read', method: 'GET', path: '/articles/{id}', auth: true },
  { fn: 'read', method: 'GET', path: '/questions', auth: true },
  { fn: 'read', method: 'GET', path: '/questions/{id}', auth: true },
  ...PAGE_TYPE_PATHS.flatMap((pages): RouteFacts[] => [
    { fn: 'publish', method: 'POST', path: `${pages}/{id}/rename`, auth: true },
    { fn: 'read', method: 'GET', path: `${pages}/{id}/redirects`, auth: true },
    { fn: 'publish', method: 'DELETE', path: `${pages}/{id}/redirects/{slug}`, auth: true },
  ]),
  { fn: 'read', method: 'GET', path: '/articles/{id}/revisions', auth: true },
  { fn: 'read', method: 'GET', path: '/questions/{id}/revisions', auth: true },
  { fn: 'publish', method: 'POST', path: '/articles/{id}/revisions/{revision_id}/restore', auth: true },
  { fn: 'publish', method: 'POST', path: '/questions/{id}/revisions/{revision_id}/restore', auth: true },
  { fn: 'question-parts', method: 'PUT', path: '/questions/{id}/summary', auth: true },
  { fn: 'question-parts', method: 'POST', path: '/questions/{id}/answers', auth: true },
  { fn: 'notify', method: 'POST', path: '/api/content/notify', auth: true },
  ...SITE_ROUTES,
  { fn: 'dashboard', method: 'GET', path: '/dashboard', auth: false },
  { fn: 'dashboard', method: 'GET', path: '/dashboard/assets/{file}', auth: false },
  { fn: 'tools', method: 'GET', path: '/v1/tools', auth: true },
  ...TOOL_NAMES.map((name): RouteFacts => ({
    fn: toolFunction(name),
    method: 'POST',
    path: `/v1/tools/${name}`,
    auth: true,
  })),
  { fn: 'tools', method: 'POST', path: '/v1/tools/{name}', auth: true },
  { fn: 'jobs', method: 'GET', path: '/v1/jobs/{job_id}', auth: true },
  { fn: 'usage', method: 'GET', path: '/v1/usage', auth: true },
  { fn: 'usage', method: 'GET', path: '/v1/budget', auth: true },
  { fn: 'usage', method: 'PUT', path: '/v1/budget', auth: true },
  { fn: 'usage', method: 'GET', path: '/v1/monitoring', auth: true },
  { fn: 'usage', method: 'PUT', path: '/v1/monitoring', auth: true },
  { fn: 'usage', method: 'GET', path: '/v1/search-console', auth: true },
  { fn: 'usage', method: 'PUT', path: '/v1/search-console', auth: true },
  { fn: 'usage', method: 'DELETE', path: '/v1/search-console', auth: true },
  { fn: 'mcp', method: 'POST', path: MCP_PATH, auth: true },
  { fn: 'mcp', method: 'GET', path: MCP_PATH, auth: false },
  { fn: 'mcp', method: 'DELETE', path: MCP_PATH, auth: false },
  { fn: 'mcp', method: 'POST', path: MCP_OAUTH_PATH, auth: true },
  { fn: 'mcp', method: 'GET', path: MCP_OAUTH_PATH, auth: false },
  { fn: 'mcp', method: 'DELETE', path: MCP_OAUTH_PATH, auth: false },
  // RFC 9728: the protected resources' metadata (the MCP endpoint's also at the root, where clients look first).
  { fn: 'discovery', method: 'GET', path: '/.well-known/oauth-protected-resource', auth: false },
  { fn: 'discovery', method: 'GET', path: `/.well-known/oauth-protected-resource${MCP_OAUTH_PATH}`, auth: false },
  { fn: 'discovery', method: 'GET', path: '/.well-known/oauth-protected-resource/v1', auth: false },
  // The authorization server (docs/api.md#oauth): its metadata, endpoints and consent page.
  { fn: 'oauth', method: 'GET', path: '/.well-known/oauth-authorization-server', auth: false },
  { fn: 'oauth', method: 'GET', path: '/.well-known/openid-configuration', auth: false },
  { fn: 'oauth', method: 'GET', path: '/oauth/authorize', auth: false },
  { fn: 'oauth', method: 'GET', path: '/oauth/authorize/{uid}', auth: false },
  { fn: 'oauth', method: 'GET', path: '/oauth/consent/{uid}', auth: false },
  { fn: 'oauth', method: 'POST', path: '/oauth/consent/{uid}', auth: false },
  { fn: 'oauth', method: 'POST', path: '/oauth/token', auth: false },
  { fn: 'oauth', method: 'POST', path: '/oauth/register', auth: false },
  { fn: 'oauth', method: 'POST', path: '/oauth/revoke', auth: false },
  { fn: 'oauth', method: 'GET', path: '/oauth/jwks', auth: false },
];

/**
 * The distribution tenant parameter naming a site's own domain: `npm run sites -- serve-domain` sets it
 * on the site's tenant, and the edge function of the sites' domains passes every request on as
 * `/domains/<its value>/…` (infra/constructs/site-edge.ts).
 */
export const SITE_DOMAIN_PARAMETER = 'site_domain';
