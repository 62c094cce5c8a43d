import { createHash, timingSafeEqual } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod/mini';
import {
  ApiError,
  bodyLimitOf,
  fieldError,
  ORIGIN_VERIFY_HEADER,
  ROUTE_TABLE,
  routeKey,
  servedRouteKey,
  SERVICE_LIMITS,
  validationError,
  type FunctionName,
} from '@cm/contract';
import { SITE_ICON_SVG, siteRoot, THEME_STYLE_SOURCE } from '@cm/core';
import { InvalidCursor, ItemTooLarge, StoreUnavailable } from '@cm/store/errors';
import { observationOf, observed, type Observation } from './observability';
import { getConfig } from './config';
import { originVerify } from './edge-secret';
import { crossOrigin } from './cross-origin';
import { timeLimit } from '@cm/providers/time-limit';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

const JSON_TYPE = 'application/json; charset=utf-8';

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult => ({
  statusCode,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body: JSON.stringify(body),
});

/**
 * What a visitor page may do: show images (the renderer allows http and https sources) and apply the
 * theme's one inline stylesheet, allowed by its hash, and nothing else. No script runs (the JSON-LD block
 * is data, which CSP does not block), no other style, stylesheet or font loads, no other site may frame
 * the page, and it has no forms or base URL to subvert. `connect-src 'self'` lets a crawler's audit
 * (Lighthouse reads robots.txt from within the page) reach the page's own origin; with no script, the
 * page itself can connect nowhere.
 */
// Marked pure so a bundle that sends no HTML leaves it, and the stylesheet it hashes, out.
const VISITOR_CSP = /* @__PURE__ */ [
  "default-src 'none'",
  'img-src http: https:',
  `style-src ${THEME_STYLE_SOURCE}`,
  "connect-src 'self'",
  "script-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const html = (statusCode: number, body: string, headers: Record<string, string> = {}): ApiResult => ({
  statusCode,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-security-policy': VISITOR_CSP,
    'referrer-policy': 'strict-origin-when-cross-origin',
    ...headers,
  },
  body,
});

/**
 * No stale-while-revalidate: CloudFront honours it, and would serve a page the site took down for one
 * more request after the minute is up (docs/api.md#the-cdn).
 */
const CACHEABLE = `public, max-age=${SERVICE_LIMITS.visitorMaxAgeSeconds}`;

/**
 * A page any cache may keep: an ETag that is a hash of the HTML itself (so whatever changes what readers
 * see changes it: a republish, a relink, a linked page going down) and, when known, Last-Modified; `304`
 * without a body when If-None-Match names the ETag or, without If-None-Match, If-Modified-Since is not
 * before Last-Modified (RFC 9110 §13.2.2: the ETag decides when both are sent).
 */
export function cacheableHtml(event: ApiEvent, body: string, modifiedAt: Date | null): ApiResult {
  return cacheable(event, body, modifiedAt, (validators) => html(200, body, validators));
}

/** The pages' icon, which browsers ask every host for at its root: cached a day. */
export const iconReply = (): ApiResult => ({
  statusCode: 200,
  headers: {
    'content-type': 'image/svg+xml',
    'x-content-type-options': 'nosniff',
    'cache-control': 'public, max-age=86400',
  },
  body: SITE_ICON_SVG,
});

/** A site's file (a sitemap, its feed, its robots.txt) any cache may keep, revalidated as its pages are. */
export function cacheableFile(event: ApiEvent, body: string, contentType: string): ApiResult {
  return cacheable(event, body, null, (validators) => ({
    statusCode: 200,
    headers: { 'content-type': contentType, 'x-content-type-options': 'nosniff', ...validators },
    body,
  }));
}

function cacheable(
  event: ApiEvent,
  body: string,
  modifiedAt: Date | null,
  answer: (validators: Record<string, string>) => ApiResult,
): ApiResult {
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  const validators = {
    etag,
    ...(modifiedAt ? { 'last-modified': modifiedAt.toUTCString() } : {}),
    'cache-control': CACHEABLE,
  };
  return notModified(event.headers, etag, modifiedAt) ? { statusCode: 304, headers: validators } : answer(validators);
}

function notModified(headers: ApiEvent['headers'], etag: string, modifiedAt: Date | null): boolean {
  const ifNoneMatch = headers['if-none-match'];
  // Weak comparison: a cache may send our tag back as W/"…".
  if (ifNoneMatch !== undefined)
    return ifNoneMatch.split(',').some((tag) => ['*', etag].includes(tag.trim().replace(/^W\//, '')));
  if (modifiedAt === null) return false;
  const since = Date.parse(headers['if-modified-since'] ?? '');
  // HTTP dates have whole seconds.
  return Number.isFinite(since) && Math.floor(modifiedAt.getTime() / 1000) * 1000 <= since;
}

/** What a route handler gets: the event, the caller's site (on authenticated routes) and parsers. */
export interface ApiRequest {
  event: ApiEvent;
  /** The site of the API key; 0 on routes without auth. */
  siteId: number;
  /** The request body, parsed as JSON and validated with a contract schema (`400` otherwise). */
  body<S extends z.ZodMiniType>(schema: S): z.output<S>;
  query<S extends z.ZodMiniType>(schema: S): z.output<S>;
  params<S extends z.ZodMiniType>(schema: S): z.output<S>;
  /** Absolute base URL of this deployment. */
  baseUrl: string;
  /** Absolute base URL of the sites' pages under the deployment's address (`<it>/sites/<id>/…`; pagesBaseUrlOf). */
  pagesBaseUrl: string;
  /**
   * Where the caller's site's pages are (its served domain, else under `baseUrl`): the root of every
   * page URL a reply names. Only on routes that take the API key.
   */
  siteRoot(): string;
  /** This request's log lines and metrics. */
  observation: Observation;
  /**
   * Aborts when the handler must stop (the route's deadline, a little before the 503 it answers): what it
   * still waits on is given up, and the holds it placed cancelled, before the answer goes.
   */
  deadline: AbortSignal;
}

export type RouteHandler = (request: ApiRequest) => Promise<ApiResult>;

export interface State {
  siteId?: number;
  /** The domain the key's site's pages are served at, when one is registered to it. */
  servedDomain?: string | null;
  jsonBody?: unknown;
}

/** `value` parsed with a contract schema, or `400 validation_failed` naming `where` (body, query, path). */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error.issues);
  return result.data;
}

/** Base URL of the sites' pages under the deployment's address: PUBLIC_PAGES_URL, else the deployment's own. */
export const pagesBaseUrlOf = (event: ApiEvent): string => getConfig().publicPagesUrl ?? baseUrlOf(event);

/**
 * Absolute base URL of this deployment: PUBLIC_BASE_URL, else the host the request came in on, over
 * http when X-Forwarded-Proto says so and https otherwise: a forwarded scheme that is neither is ignored.
 */
export function baseUrlOf(event: ApiEvent): string {
  const configured = getConfig().publicBaseUrl;
  if (configured) return configured;
  const proto = event.headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  return `${proto}://${event.requestContext.domainName}`;
}

/**
 * The one error shape (docs/api.md#errors) for every failure; anything unexpected is logged with its stack and
 * answered 500 with no detail.
 */
const errorReplies = (): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  onError: async (request) => {
    const error = apiErrorOf(request.error, request.event);
    const { log } = observationOf(request.context);
    if (error instanceof ApiError) {
      request.response = json(error.status, error.toBody(), error.headers);
      const line = {
        status: error.status,
        code: error.code,
        ...(error === request.error ? {} : { cause: request.error?.message }),
      };
      if (error.status >= 500) log.warn('answered with an error', line);
      else log.info('answered', line);
      return;
    }
    log.error('unhandled error', { error });
    request.response = json(500, { error: 'internal_error', code: 'internal_error', message: 'Internal error' });
  },
});

/** `503 service_unavailable` with its Retry-After: the table cannot be reached, or the route's time ran out. */
export function serviceUnavailable(message: string): ApiError {
  const retryAfterMs = SERVICE_LIMITS.unavailableRetryAfterMs;
  return new ApiError(
    'service_unavailable',
    `${message}; try again in ${retryAfterMs / 1000} s`,
    { retry_after_ms: retryAfterMs },
    { 'retry-after': String(retryAfterMs / 1000) },
  );
}

/**
 * The store's refusals in HTTP terms. A cursor is a query parameter of GET listings and a body field
 * of the tools (POST).
 */
function apiErrorOf(error: unknown, event: ApiEvent): unknown {
  if (error instanceof InvalidCursor)
    return fieldError(event.requestContext.http.method === 'GET' ? 'query' : 'body', 'cursor', error.message);
  if (error instanceof StoreUnavailable) return serviceUnavailable('The data store cannot be reached');
  // Never a 500: what was sent is too large to store as one item (DynamoDB's 400 KB).
  if (error instanceof ItemTooLarge)
    return new ApiError('payload_too_large', 'What was sent is too large to store (an item over 400 KB); send less', {
      limit_bytes: ITEM_LIMIT_BYTES,
    });
  return error;
}

/** DynamoDB's limit on one item, in bytes. */
const ITEM_LIMIT_BYTES = 400 * 1024;

/** `413 payload_too_large`: the body is over `limitBytes` (`bytes` long, when it was read whole). */
export function payloadTooLarge(limitBytes: number, bytes?: number): ApiError {
  const size = bytes === undefined ? `over ${limitBytes} bytes` : `${bytes} bytes`;
  return new ApiError('payload_too_large', `The body is ${size}; the limit is ${limitBytes}`, {
    limit_bytes: limitBytes,
  });
}

/** Whether JSON text nests arrays and objects deeper than `max` levels: one pass over the text, no recursion. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the character after it.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * A HEAD request is served by its GET route, and answered with that route's status and headers and no
 * body, errors included (its onError runs after the error replies').
 */
const headRequests = (): middy.MiddlewareObj<ApiEvent, ApiResult> => {
  const withoutBody = (request: middy.Request<ApiEvent, ApiResult>) => {
    if (request.event.requestContext.http.method === 'HEAD' && request.response)
      request.response = { ...request.response, body: '' };
  };
  return {
    before: async ({ event }) => {
      event.routeKey = servedRouteKey(event.routeKey);
    },
    after: async (request) => withoutBody(request),
    onError: async (request) => withoutBody(request),
  };
};

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Behind CloudFront (an origin secret set), a request that did not come through the distribution, which
 * adds the origin secret, is refused before anything reads its body or key: the API's own execute-api
 * URL and the function URL answer only what passed WAF's rate rules.
 */
const throughEdge = (): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  before: async ({ event }) => {
    const secret = await originVerify();
    if (secret === undefined) return;
    const sent = event.headers[ORIGIN_VERIFY_HEADER];
    if (sent !== undefined && timingSafeEqual(digest(sent), digest(secret))) return;
    const at = getConfig().publicBaseUrl;
    throw new ApiError('edge_required', `This deployment answers only at its public address${at ? ` (${at})` : ''}`);
  },
});

/** JSON text nested deeper than `jsonDepthMax` is refused (400 validation_failed) before anything walks it, JSON.parse included. */
export function refuseDeepJson(text: string): void {
  const max = SERVICE_LIMITS.jsonDepthMax;
  if (!nestsDeeperThan(text, max)) return;
  const message = `nests arrays and objects deeper than ${max} levels`;
  throw new ApiError('validation_failed', `body: ${message}`, { issues: [{ path: '', message }] });
}

/** Each route's body limit, by route key: looked up on every request with a body. */
const BODY_LIMITS = new Map(ROUTE_TABLE.map((route) => [routeKey(route), bodyLimitOf(route)]));

/**
 * Reads the body as JSON: over the route's limit → 413, nested deeper than `jsonDepthMax` → 400
 * validation_failed before anything walks it (JSON.parse included), not JSON → 400 invalid_json.
 */
const jsonBody = (state: WeakMap<ApiEvent, State>, json: boolean): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  before: async ({ event }) => {
    if (event.body === undefined || event.body === null || event.body === '') return;
    const limitBytes = BODY_LIMITS.get(event.routeKey) ?? bodyLimitOf(undefined);
    const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
    if (raw.length > limitBytes) throw payloadTooLarge(limitBytes, raw.length);
    // A route that reads its own body (a form) has only its limit checked.
    if (!json) return;
    // A UTF-8 byte-order mark before the JSON text is ignored (RFC 8259 §8.1 lets a parser do so).
    const text = raw.toString('utf8').replace(/^\uFEFF/, '');
    refuseDeepJson(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'The body is not valid JSON');
    }
    state.set(event, { ...state.get(event), jsonBody: parsed });
  },
});

export type Handlers = Record<string, RouteHandler>;

/** How a function's routes read their bodies: as JSON (the default), or themselves (`json: false`). */
export interface BodyOptions {
  json?: boolean;
}

/** `api` for a function whose routes are all public: it never looks up a key. */
export function publicApi(fn: FunctionName, handlers: Handlers, options: BodyOptions = {}) {
  const secured = routesOf(fn, handlers).filter((r) => r.auth);
  if (secured.length > 0) throw new Error(`${fn}: ${secured.map(routeKey).join(', ')} need the API key; use api()`);
  return routeHandler(handlers, new WeakMap(), undefined, options);
}

export function routesOf(fn: FunctionName, handlers: Handlers) {
  const routes = ROUTE_TABLE.filter((r) => r.fn === fn);
  for (const route of routes) {
    if (!handlers[routeKey(route)]) throw new Error(`${fn}: no handler for ${routeKey(route)}`);
  }
  return routes;
}

/** Checks a request's credentials before its route's handler runs (sets the site in the state). */
export type Authenticate = (event: ApiEvent, context: Context) => Promise<void>;

/** What is left of the function's time when the route's deadline answers 503: room to send the answer. */
const DEADLINE_MARGIN_MS = 500;
/**
 * How long before that a handler is told to stop (`ApiRequest.deadline`): room to cancel the holds a run
 * placed (one or two DynamoDB writes) and answer itself, before the deadline answers for it.
 */
const ABANDON_MARGIN_MS = 1_000;

/**
 * Observation, error replies and JSON bodies, then `authenticate` (after the body) and the route's
 * handler, both within the route's deadline: the function's time less a margin, after which the answer
 * is `503 service_unavailable` rather than no answer.
 */
export function routeHandler(
  handlers: Handlers,
  state: WeakMap<ApiEvent, State>,
  authenticate?: Authenticate,
  { json = true }: BodyOptions = {},
) {
  return (
    middy<ApiEvent, ApiResult, Error, Context>({
      timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
      timeoutEarlyResponse: () => {
        throw serviceUnavailable('The request did not finish in time');
      },
    })
      .use(
        observed<ApiEvent, ApiResult>((event, observation) =>
          observation.keys({ route: event.routeKey, api_request_id: event.requestContext.requestId }),
        ),
      )
      .use(headRequests())
      .use(crossOrigin())
      .use(errorReplies())
      .use(throughEdge())
      .use(jsonBody(state, json))
      // Not middy's handler signal: that one controller is shared by every request the module serves, so
      // one request's early timeout would abort the others (the local stack serves many at once).
      .handler(async (event, context) => {
        const handler = handlers[event.routeKey];
        if (!handler) throw new ApiError('not_found', `No route ${event.requestContext.http.method} ${event.rawPath}`);
        await authenticate?.(event, context);
        const { siteId = 0, servedDomain = null, jsonBody: parsed } = state.get(event) ?? {};
        const baseUrl = baseUrlOf(event);
        const pagesBaseUrl = pagesBaseUrlOf(event);
        const observation = observationOf(context);
        const deadline = timeLimit(context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS - ABANDON_MARGIN_MS);
        try {
          const result = await handler({
            event,
            siteId,
            body: (schema) => validate(schema, parsed, 'body'),
            query: (schema) => validate(schema, event.queryStringParameters ?? {}, 'query'),
            params: (schema) => validate(schema, event.pathParameters ?? {}, 'path'),
            baseUrl,
            pagesBaseUrl,
            siteRoot: () => {
              if (siteId === 0) throw new Error(`${event.routeKey} takes no API key: it has no site`);
              return siteRoot(pagesBaseUrl, { site_id: siteId, served_domain: servedDomain });
            },
            observation,
            deadline: deadline.signal,
          });
          observation.log.info('answered', { status: result.statusCode });
          return result;
        } finally {
          deadline.clear();
        }
      })
  );
}
