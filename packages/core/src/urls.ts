const LINK_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];
const IMAGE_SCHEMES: readonly string[] = ['http:', 'https:'];

/** The URL when its scheme may be rendered as a link (http, https, mailto), else null. Relative URLs never render. */
export function allowedUrl(value: string | null | undefined, schemes = LINK_SCHEMES): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** The URL when it may be an image source (http, https), else null. */
export const allowedImageUrl = (value: string | null | undefined): string | null => allowedUrl(value, IMAGE_SCHEMES);

/** The hosts a native app's loopback listener is reached at (RFC 8252 §7.3): this machine only. */
const LOOPBACK_HOSTS = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * Why an OAuth client's redirect URI is refused, or null when it is good: https to any host, or http to
 * this machine's loopback listener (a native app's, RFC 8252 §7.3); no other scheme (custom schemes
 * included), no credentials, no fragment (OAuth 2.1 §2.3.1). The authorization server matches it exactly.
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
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname)) return null;
  return `${value} is neither https nor http to this machine's loopback address`;
}
