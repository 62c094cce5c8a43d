const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** The URL when its scheme may be rendered (http, https, mailto), else null. Relative URLs never render. */
export function allowedUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return ALLOWED_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}
