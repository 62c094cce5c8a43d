import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* The authorization server's items: what it stored of one thing (its payload as JSON text), and its index items. */

const OAuthItem = z.looseObject({
  model: z.string(),
  /** The payload the authorization server gave, as JSON text, its id (`jti`) left out: only the hash of the id is kept. */
  payload: z.string(),
  /** Epoch seconds: TTL tidies it away then; whoever reads it checks the time itself. */
  expires_at: z.optional(z.number()),
  /** Epoch seconds: when a one-use thing (a code, a rotated refresh token) was used. */
  consumed_at: z.optional(z.number()),
  grant_hash: z.optional(z.string()),
  uid_hash: z.optional(z.string()),
  /** A used refresh token's: the hash of the one its use answered (what a retry within the grace replaces). */
  successor_hash: z.optional(z.string()),
});
export type OAuthItem = z.infer<typeof OAuthItem>;

export const decodeOAuthItem = (item: Record<string, unknown>, key?: Record<string, unknown>): OAuthItem =>
  decodeItem('oauth', OAuthItem, item, key);

const GrantIndexItem = z.looseObject({ pk: z.string(), sk: z.string(), target_pk: z.string() });

export const decodeGrantIndexItem = (item: Record<string, unknown>) =>
  decodeItem('oauth grant index', GrantIndexItem, item);

const SessionUidItem = z.looseObject({ session_hash: z.string() });

export const decodeSessionUidItem = (item: Record<string, unknown>, key: Record<string, unknown>) =>
  decodeItem('oauth session uid', SessionUidItem, item, key);

/**
 * What the API reads of an access token to serve its owner: whose it is, for what, until when. The
 * authorization server (oidc-provider) writes it; `accountId` is the site and the hash of the key its
 * owner signed in with.
 */
const AccessTokenPayload = z.looseObject({
  accountId: z.string(),
  clientId: z.string(),
  /** The resource it is for (RFC 8707). */
  aud: z.union([z.string(), z.array(z.string())]),
  scope: z.optional(z.string()),
  /** Epoch seconds. */
  exp: z.number(),
  /** The thumbprint of the DPoP key a token is bound to (RFC 9449 `cnf.jkt`), when it is. */
  jkt: z.optional(z.string()),
});
export type AccessTokenPayload = z.infer<typeof AccessTokenPayload>;

export const decodeAccessTokenPayload = (payload: unknown): AccessTokenPayload =>
  decodeItem('oauth access token', AccessTokenPayload, payload);
