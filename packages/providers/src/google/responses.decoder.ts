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

/** A row's figures, as every read gives them. */
const FIGURES = {
  clicks: z.number().check(z.nonnegative()),
  impressions: z.number().check(z.nonnegative()),
  ctr: z.number().check(z.nonnegative()),
  position: z.number().check(z.nonnegative()),
};
const Country = z.string().check(z.minLength(1));

/** searchAnalytics.query's answers, one per read: a row's keys in the order of the dimensions asked; `rows` is absent when the day has none (or none past `startRow`). */
export const TotalsAnswer = z.looseObject({
  rows: z.optional(z.array(z.looseObject({ keys: z.tuple([GoogleDevice, Country]), ...FIGURES }))),
});
export const PagesAnswer = z.looseObject({
  rows: z.optional(z.array(z.looseObject({ keys: z.tuple([z.string(), GoogleDevice]), ...FIGURES }))),
});
export const QueriesAnswer = z.looseObject({
  rows: z.optional(z.array(z.looseObject({ keys: z.tuple([z.string(), z.string()]), ...FIGURES }))),
});

/** Google APIs' error body, `{ error: { code, message, status } }`. */
export const ApiError = z.looseObject({
  error: z.looseObject({ message: z.string() }),
});
