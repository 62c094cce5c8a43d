import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 as ApiEvent, APIGatewayProxyStructuredResultV2 as ApiResult } from 'aws-lambda';
import { ApiError, MCP_OAUTH_PATH, OAUTH_CORS } from '@cm/contract';
import { getConfig } from './config';

/*
 * Which browser pages may call the service (docs/api.md#browser-based-clients): the MCP endpoints take
 * a page of an allowed origin (the MCP spec's guard against DNS rebinding), and the OAuth paths answer
 * CORS as OAUTH_CORS says, so a browser-based MCP client can discover, register, sign in and call.
 */

const LOOPBACK = /^https?:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Whether a browser page of `origin` may call: loopback origins, the deployment's public base URL
 * (PUBLIC_BASE_URL) and MCP_ALLOWED_ORIGINS (comma-separated). The request's own Host is not trusted:
 * a DNS-rebound name would pass.
 */
export function originAllowed(origin: string): boolean {
  if (LOOPBACK.test(origin)) return true;
  const allowed = [getConfig().publicBaseUrl, ...getConfig().mcpAllowedOrigins]
    .map((o) => o?.trim().replace(/\/+$/, ''))
    .filter((o): o is string => !!o)
    .map((o) => {
      try {
        return new URL(o).origin;
      } catch {
        return o;
      }
    });
  return allowed.includes(origin.replace(/\/+$/, ''));
}

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 3600;

/** What a page may read of the MCP endpoint's replies: the challenge it discovers the authorization server by. */
const EXPOSED: Readonly<Record<string, string>> = { [MCP_OAUTH_PATH]: 'WWW-Authenticate' };

/** The origin a reply to a page of `origin` on `path` names in Access-Control-Allow-Origin; null when none may read it. */
function allowedOriginOf(path: string, origin: string | undefined): string | null {
  const policy = OAUTH_CORS[path];
  if (origin === undefined || policy === undefined) return null;
  if (policy === 'any') return '*';
  return originAllowed(origin) ? origin : null;
}

/** The CORS headers of a reply to `event`: none for a path without CORS or an origin it does not allow. */
function corsHeadersOf(event: ApiEvent): Record<string, string> {
  const allowOrigin = allowedOriginOf(event.rawPath, event.headers.origin);
  if (allowOrigin === null) return {};
  const exposed = EXPOSED[event.rawPath];
  return {
    'access-control-allow-origin': allowOrigin,
    vary: 'Origin',
    ...(exposed ? { 'access-control-expose-headers': exposed } : {}),
  };
}

/**
 * Adds the CORS headers to a reply of a CORS path, errors included, unless the reply has its own
 * (oidc-provider's on its metadata, signing keys, token and revocation endpoints).
 */
export const crossOrigin = (): middy.MiddlewareObj<ApiEvent, ApiResult> => {
  const withHeaders = (request: middy.Request<ApiEvent, ApiResult>) => {
    const { response, event } = request;
    if (!response || response.headers?.['access-control-allow-origin'] !== undefined) return;
    const headers = corsHeadersOf(event);
    if (!Object.keys(headers).length) return;
    // A reply that varies already (oidc-provider's refusals of an origin vary by it) keeps what it says.
    const vary = response.headers?.vary;
    if (vary !== undefined) headers.vary = /\borigin\b/i.test(String(vary)) ? String(vary) : `${String(vary)}, Origin`;
    request.response = { ...response, headers: { ...response.headers, ...headers } };
  };
  return { after: async (request) => withHeaders(request), onError: async (request) => withHeaders(request) };
};

/**
 * The answer to an `OPTIONS` request of a path whose methods are `allow`: `204` with `Allow`, and for a
 * CORS preflight from a page that may call the path, what it may send. A preflight from a page that may
 * not is `403 origin_not_allowed`.
 */
export function optionsReply(event: ApiEvent, allow: readonly string[]): ApiResult {
  const reply: ApiResult = { statusCode: 204, headers: { allow: allow.join(', ') } };
  const origin = event.headers.origin;
  if (origin === undefined || event.headers['access-control-request-method'] === undefined) return reply;
  const allowOrigin = allowedOriginOf(event.rawPath, origin);
  if (allowOrigin === null)
    throw new ApiError('origin_not_allowed', `Origin ${origin} may not call ${event.rawPath}`, { origin });
  const requested = event.headers['access-control-request-headers'];
  return {
    ...reply,
    headers: {
      ...reply.headers,
      'access-control-allow-origin': allowOrigin,
      'access-control-allow-methods': allow.join(', '),
      ...(requested ? { 'access-control-allow-headers': requested } : {}),
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
      vary: 'Origin',
    },
  };
}
