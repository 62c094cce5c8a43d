/*
 * OAuth redirect URIs (docs/api/oauth.md#the-authorization-server): which a client may register, and
 * which of its registered ones an authorization request names. RFC 8252 (OAuth for native apps) and
 * OAuth 2.1 §2.3: https anywhere; http only to this machine's loopback listener, on any port at request
 * time; a native app's private-use scheme (`cursor://…`); never a scheme a browser runs or reads.
 */

/** The hosts a native app's loopback listener is reached at (RFC 8252 §7.3): this machine only. */
const LOOPBACK_HOSTS = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * Schemes no redirect may use: a browser runs them as script, reads local data with them, or they are
 * the web's own (only https, and http to loopback, are taken of those). Any other is a private-use
 * scheme, which the native app that claims it receives (RFC 8252 §7.1).
 */
const REFUSED_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'filesystem:',
  'about:',
  'view-source:',
  'ws:',
  'wss:',
  'ftp:',
]);

/** Whether `url` is http to this machine's loopback listener. */
const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname);

/** Whether `url` is a native app's private-use scheme (RFC 8252 §7.1): neither a web scheme nor a refused one. */
export const isPrivateUseScheme = (url: URL): boolean =>
  url.protocol !== 'https:' && url.protocol !== 'http:' && !REFUSED_SCHEMES.has(url.protocol);

/**
 * Why an OAuth client's redirect URI is refused, or null when it is good: https to any host, http to
 * this machine's loopback listener, or a native app's private-use scheme; no credentials, no fragment
 * (OAuth 2.1 §2.3.1), no scheme a browser runs as script or reads local data with.
 */
export function redirectUriRefusal(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value} is not a URL`;
  }
  if (url.hash || value.includes('#')) return `${value} has a fragment`;
  if (url.username || url.password) return `${value} carries credentials`;
  if (url.protocol === 'https:' || isLoopbackHttp(url) || isPrivateUseScheme(url)) return null;
  if (url.protocol === 'http:')
    return `${value} is http to another machine: http is only for this machine's loopback address (127.0.0.1, [::1], localhost); use https`;
  return `${value} uses the ${url.protocol.slice(0, -1)} scheme, which a browser runs or reads itself: a redirect URI is https, http to loopback, or a native app's own scheme`;
}

/** The URI with its port taken out, when it is http to loopback (so any port matches); null otherwise. */
function loopbackWithoutPort(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!isLoopbackHttp(url) || url.username || url.password) return null;
  url.port = '';
  return url.href;
}

/**
 * Whether an authorization request's redirect URI is one of the client's registered ones: exactly, or,
 * for http to loopback, on another port (RFC 8252 §7.3: a native app's listener takes whichever port
 * is free, so the port is not matched; the host, path and query are). `localhost` and an IP literal
 * are different hosts: one never stands for the other.
 */
export function redirectUriRegistered(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  const askedLoopback = loopbackWithoutPort(asked);
  return askedLoopback !== null && registered.some((uri) => loopbackWithoutPort(uri) === askedLoopback);
}

/**
 * Where a redirect URI sends the browser, as a consent page names it and as its Content-Security-Policy
 * allows it: a web URI's host and origin; a private-use scheme's app, by its scheme (its "origin" is
 * opaque, so the policy names the scheme).
 */
export function redirectTarget(uri: string): { shown: string; source: string } {
  const url = new URL(uri);
  if (isPrivateUseScheme(url)) return { shown: `the app that opens ${url.protocol} links`, source: url.protocol };
  return { shown: url.host, source: url.origin };
}
