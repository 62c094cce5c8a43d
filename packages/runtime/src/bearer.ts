import {
  ApiError,
  isOAuthScope,
  MCP_SCOPES,
  resourceNamed,
  OAUTH_SCOPE_NAMES,
  PROTECTED_RESOURCE_METADATA_PATH,
  MCP_OAUTH_PATH,
  type OAuthResource,
  type OAuthScope,
} from '@cm/contract';
import { getAccessTokens, getSites } from './services';

/*
 * The resource server's half of OAuth (docs/api.md#oauth): an access token the authorization server
 * issued (opaque; stored by its hash) is good for its site while it is unexpired, for a resource of
 * this deployment, and the API key its site's owner signed in with is still good. The API key is
 * checked as before and never answered with an OAuth challenge.
 */

/** Who owns a good access token: its site, what it may do, and which resource it was issued for. */
export interface TokenOwner {
  siteId: number;
  /** The domain the site's pages are served at, when one is registered to it. */
  servedDomain: string | null;
  scopes: OAuthScope[];
  resource: OAuthResource;
  clientId: string;
}

/**
 * The account an OAuth grant is for: the site, and the hash of the key its owner signed in with, so
 * a revoked or rotated key ends the grant's tokens as it ends the key.
 */
export const accountIdOf = (siteId: number, keyHash: string): string => `site:${siteId}:key:${keyHash}`;

/** The site and key hash of an account id; null for one this service did not make. */
export function accountOf(accountId: string): { siteId: number; keyHash: string } | null {
  const [, site, keyHash] = /^site:(\d{1,12}):key:([0-9a-f]{64})$/.exec(accountId) ?? [];
  return site && keyHash ? { siteId: Number(site), keyHash } : null;
}

/**
 * Positive lookups are kept briefly per container, as keys are (KEY_CACHE_MS): a revoked token, or one
 * of a revoked key, stops within seconds everywhere (5 s for the token, and the key's own 5 s).
 */
const TOKEN_CACHE_MS = 5_000;
const tokenCache = new Map<string, { owner: TokenOwner; until: number }>();
const keyHashCache = new Map<string, { site: { siteId: number; servedDomain: string | null }; until: number }>();

/**
 * The site of the API key whose hash is `keyHash`, and the domain its pages are served at, while the
 * key is good (kept 5 s, as keys are; `fresh` reads past what is kept). With the site it must belong
 * to, the key and the site are read in one round trip.
 */
async function keyHashSiteOf(
  keyHash: string,
  siteId?: number,
  fresh = false,
): Promise<{ siteId: number; servedDomain: string | null } | null> {
  const now = Date.now();
  const hit = keyHashCache.get(keyHash);
  if (!fresh && hit && hit.until > now) return hit.site;
  const grant = await getSites().lookupKeyHash(keyHash, now, siteId);
  if (grant === null) {
    keyHashCache.delete(keyHash);
    return null;
  }
  const site = { siteId: grant.site_id, servedDomain: grant.served_domain };
  keyHashCache.set(keyHash, { site, until: Math.min(now + TOKEN_CACHE_MS, grant.valid_until ?? Infinity) });
  return site;
}

/**
 * The site of the API key whose hash is `keyHash`, read now, not as kept: the authorization server asks
 * before it issues a token (a code exchanged, a refresh), and a key revoked a moment ago issues none.
 */
export async function siteOfKeyHash(keyHash: string, siteId: number): Promise<number | null> {
  return (await keyHashSiteOf(keyHash, siteId, true))?.siteId ?? null;
}

/** The value of `Authorization: Bearer …`, if any. */
export function bearerOf(authorization: string | undefined): string | undefined {
  const value = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  return value || undefined;
}

/**
 * Who owns `token`, or null when it is no good: unknown, expired, bound to a proof-of-possession key
 * (DPoP is not offered, and a bound token is never good as a bearer one: RFC 9449 §7.1), of a resource
 * that is not this deployment's at `base`, or of a key that no longer works. One GetItem of the token,
 * then the key's and its site's GetItems at once: 3 requests in 2 round trips, both answers kept 5 s
 * per container.
 */
export async function ownerOfToken(token: string, base: string): Promise<TokenOwner | null> {
  const now = Date.now();
  const hit = tokenCache.get(token);
  if (hit && hit.until > now) return hit.owner;
  tokenCache.delete(token);
  const stored = await getAccessTokens().find(token);
  if (!stored || stored.exp * 1000 <= now || stored.jkt !== undefined) return null;
  const audiences = Array.isArray(stored.aud) ? stored.aud : [stored.aud];
  const resource = audiences.map((aud) => resourceNamed(base, aud)).find((r) => r !== undefined);
  const account = accountOf(stored.accountId);
  if (!resource || !account) return null;
  const site = await keyHashSiteOf(account.keyHash, account.siteId);
  if (site?.siteId !== account.siteId) return null;
  const owner: TokenOwner = {
    siteId: account.siteId,
    servedDomain: site.servedDomain,
    scopes: (stored.scope ?? '').split(' ').filter(isOAuthScope),
    resource,
    clientId: stored.clientId,
  };
  tokenCache.set(token, { owner, until: Math.min(now + TOKEN_CACHE_MS, stored.exp * 1000) });
  return owner;
}

/** Where a resource's RFC 9728 metadata is. */
export const metadataUrlOf = (base: string, resource: OAuthResource): string =>
  `${base}${PROTECTED_RESOURCE_METADATA_PATH}${resource === 'mcp' ? MCP_OAUTH_PATH : '/v1'}`;

/** A `WWW-Authenticate: Bearer` challenge that points to the resource's metadata (RFC 6750, RFC 9728). */
function challenge(base: string, resource: OAuthResource, scopes: readonly OAuthScope[], error?: string): string {
  const params = [
    ...(error ? [`error="${error}"`] : []),
    `scope="${scopes.join(' ')}"`,
    `resource_metadata="${metadataUrlOf(base, resource)}"`,
  ];
  return `Bearer ${params.join(', ')}`;
}

/** The scopes a resource's challenge asks for when a request carries no credential: what its tools need. */
const askedOf = (resource: OAuthResource): readonly OAuthScope[] =>
  resource === 'mcp' ? MCP_SCOPES : OAUTH_SCOPE_NAMES;

/** `401`: no credential, or a token that is no good; the challenge says where to get one. */
export const tokenRequired = (base: string, resource: OAuthResource, message: string, invalid: boolean) =>
  new ApiError(
    'unauthorized',
    message,
    {},
    { 'www-authenticate': challenge(base, resource, askedOf(resource), invalid ? 'invalid_token' : undefined) },
  );

/**
 * `403 insufficient_scope`: a good token without the scope the call needs. The challenge asks for the
 * token's scopes and the one missing, so a client can step up (ask its user again for more).
 */
export function insufficientScope(
  base: string,
  owner: Pick<TokenOwner, 'resource' | 'scopes'>,
  needed: OAuthScope,
): ApiError {
  const scopes = [...new Set([...owner.scopes, needed])];
  return new ApiError(
    'insufficient_scope',
    `This call needs the ${needed} scope, which the token was not granted: sign in again and approve it`,
    { scope: needed },
    { 'www-authenticate': challenge(base, owner.resource, scopes, 'insufficient_scope') },
  );
}
