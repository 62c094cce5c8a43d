import * as z from 'zod';

// A missing required field reads "Required", as docs/api.md#validation-errors shows, instead of zod's type message.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined),
});

export const PAGE_TYPES = ['article', 'question'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export const PAGE_STATUSES = ['draft', 'published'] as const;
export const PageStatus = z.enum(PAGE_STATUSES);
export type PageStatus = z.infer<typeof PageStatus>;

/** One lowercase segment (docs/api.md#slugs-and-ids). */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const Slug = z.string().min(1).max(200).regex(SLUG_PATTERN, 'must be one lowercase segment: a-z, 0-9 and single hyphens, e.g. best-running-shoes');

/** ISO 8601 with a time zone; stored and returned as UTC. */
export const Timestamp = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());

/** ISO 8601 date or date-time, as a source's `accessed_at`. */
export const DateOrTimestamp = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** Any absolute URL. Whether it is ever rendered is decided by the renderer's scheme allow-list. */
export const AbsoluteUrl = z.string().refine((v) => parseUrl(v) !== null, 'must be an absolute URL');

/** An absolute http(s) URL. */
export const HttpUrl = z.string().refine((v) => {
  const url = parseUrl(v);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}, 'must be an absolute http or https URL');

export const SiteId = z.int().positive();

export const StringList = z.array(z.string());
