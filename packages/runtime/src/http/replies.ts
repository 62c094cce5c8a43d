import { hash } from 'node:crypto';
import { SERVICE_LIMITS } from '@cm/contract';
import { SITE_ICON_SVG, THEME_STYLE_SOURCE } from '@cm/core';
import type { ApiEvent, ApiResult } from './request';

/* The replies a route answers with: JSON, a visitor page, a cacheable page or file, the icon. */

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

/**
 * A visitor path that moved (an old slug, a slash at the end): 301 to where the page is, kept by caches
 * as long as a page is, so a redirect removed or a slug taken again shows as soon as a republish would.
 */
export const movedPermanently = (location: string, body: string): ApiResult =>
  html(301, body, { location, 'cache-control': CACHEABLE });

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
  // The one-shot hash: the same digest as createHash's, without a Hash object per reply.
  const etag = `"${hash('sha256', body, 'base64url')}"`;
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
