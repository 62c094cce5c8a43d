import {
  answersHead,
  ApiError,
  MCP_OAUTH_PATH,
  OAUTH_CORS,
  PROTECTED_RESOURCE_METADATA_PATH,
  ROUTE_TABLE,
  routePattern,
  type RouteFacts,
} from '@cm/contract';
import { optionsReply } from './cross-origin';
import type { ApiEvent, ApiResult } from './http/request';

/*
 * What no route takes, which API Gateway hands to its default integration (the discovery function):
 * on an OAuth path, `OPTIONS` (a browser's preflight) and any other method it does not take (`405` with
 * `Allow`, RFC 9110 §15.5.6); anywhere else, `404 not_found`.
 */

/**
 * Whether a route is the OAuth surface's: the authorization server's, its metadata, or the MCP endpoint
 * that takes tokens (by POST: its GET and DELETE routes are there to be refused).
 */
const isOAuthRoute = (route: RouteFacts) =>
  route.fn === 'oauth' ||
  route.path.startsWith(PROTECTED_RESOURCE_METADATA_PATH) ||
  (route.path === MCP_OAUTH_PATH && route.method === 'POST');

/** Each OAuth route with a pattern of its path (a `{name}` is one segment). */
const OAUTH_ROUTES = ROUTE_TABLE.filter(isOAuthRoute).map((route) => ({
  route,
  pattern: routePattern(route.path).pattern,
}));

/** The methods `path` answers, OPTIONS among them when a browser may call it; none for a path that is not OAuth's. */
export function methodsOf(path: string): string[] {
  const routes = OAUTH_ROUTES.filter(({ pattern }) => pattern.test(path)).map(({ route }) => route);
  if (!routes.length) return [];
  const methods = routes.flatMap((route) => (answersHead(route) ? [route.method, 'HEAD'] : [route.method]));
  return [...new Set([...methods, ...(OAUTH_CORS[path] ? ['OPTIONS'] : [])])];
}

/** The answer to a request no route takes. */
export function unroutedReply(event: ApiEvent): ApiResult {
  const method = event.requestContext.http.method;
  const allow = methodsOf(event.rawPath);
  if (method === 'OPTIONS' && allow.includes('OPTIONS')) return optionsReply(event, allow);
  if (allow.length)
    throw new ApiError(
      'method_not_allowed',
      `${event.rawPath} takes ${allow.join(', ')}, not ${method}`,
      {},
      { allow: allow.join(', ') },
    );
  throw new ApiError('not_found', `No route ${method} ${event.rawPath}`);
}
