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
