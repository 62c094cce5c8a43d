import * as z from 'zod/mini';

/* The service account's key and what Google's token endpoint and Search Console answer, decoded where they arrive. */

/**
 * The fields of a service account's JSON key the client uses (Google's key file has more: they are
 * ignored). `token_uri` is not read: the assertion's audience is always Google's token endpoint.
 */
export const ServiceAccountKey = z.looseObject({
  client_email: z.string().check(z.minLength(1)),
  private_key: z.string().check(z.minLength(1)),
});
export type ServiceAccountKey = z.infer<typeof ServiceAccountKey>;

/** The token endpoint's answer to a JWT bearer grant (RFC 6749 §5.1). */
export const TokenAnswer = z.looseObject({
  access_token: z.string().check(z.minLength(1)),
  expires_in: z.number().check(z.positive()),
  token_type: z.optional(z.string()),
});

/** The token endpoint's refusal (RFC 6749 §5.2). */
export const TokenRefusal = z.looseObject({
  error: z.string(),
  error_description: z.optional(z.string()),
});

/** Google's device dimension, as searchAnalytics.query names it. */
export const GoogleDevice = z.enum(['DESKTOP', 'MOBILE', 'TABLET']);

/** One row: its keys in the order of the dimensions asked, [date, page, query, device, country]. */
const QueryRow = z.looseObject({
  keys: z.tuple([
    z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
    z.string(),
    z.string(),
    GoogleDevice,
    z.string().check(z.minLength(1)),
  ]),
  clicks: z.number().check(z.nonnegative()),
  impressions: z.number().check(z.nonnegative()),
  ctr: z.number().check(z.nonnegative()),
  position: z.number().check(z.nonnegative()),
});

export type QueryRow = z.infer<typeof QueryRow>;

/** searchAnalytics.query's answer; `rows` is absent when the day has none (or none past `startRow`). */
export const QueryAnswer = z.looseObject({
  rows: z.optional(z.array(QueryRow)),
});

/** Google APIs' error body, `{ error: { code, message, status } }`. */
export const ApiError = z.looseObject({
  error: z.looseObject({ message: z.string() }),
});
