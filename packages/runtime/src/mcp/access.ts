import { API_KEY_PREFIX, ApiError, type OAuthScope } from '@cm/contract';
import { siteOfKey } from '../api';
import { bearerOf, ownerOfToken, tokenRequired } from '../bearer';
import { baseUrlOf, type ApiEvent } from '../http/request';
import { originAllowed } from '../cross-origin';

/*
 * Who may call the MCP endpoints: the browser origins allowed, and the caller's site. MCP_PATH takes
 * the API key only and never answers an OAuth challenge; MCP_OAUTH_PATH takes the key the same way, or
 * an OAuth access token issued for it, with the scope each call needs (docs/api.md#oauth).
 */

/** The API key of `X-API-Key`, else of `Authorization: Bearer <key>`. */
export function apiKeyOf(headers: ApiEvent['headers']): string | undefined {
  return headers['x-api-key']?.trim() || bearerOf(headers.authorization);
}

/** The headers that carry a caller's credential to the functions a call runs: its key, or its token. */
export type Credential = { 'x-api-key': string } | { authorization: string };

/** A checked caller: its site and credential, and for a token what it may do. */
export interface CheckedCaller {
  siteId: number;
  credential: Credential;
  /** A token's scopes; undefined for the API key, which may do everything its site may. */
  scopes?: OAuthScope[];
}

const unauthorized = (message: string) => new ApiError('unauthorized', message, {}, { 'www-authenticate': 'Bearer' });

function checkOrigin(event: ApiEvent): void {
  const origin = event.headers.origin;
  if (origin !== undefined && !originAllowed(origin))
    throw new ApiError('origin_not_allowed', `Origin ${origin} may not call this endpoint`, { origin });
}

/** The key endpoint's caller, before any MCP work: 403 for an origin not allowed, 401 for a missing or unknown key. */
export async function checkCaller(event: ApiEvent): Promise<CheckedCaller> {
  checkOrigin(event);
  const apiKey = apiKeyOf(event.headers);
  if (!apiKey) throw unauthorized('Send the API key as X-API-Key or Authorization: Bearer');
  const siteId = await siteOfKey(apiKey);
  if (siteId === null)
    throw unauthorized(
      apiKey.startsWith(API_KEY_PREFIX)
        ? 'The API key is not valid'
        : 'The API key is not valid; an OAuth access token is taken at /mcp/oauth',
    );
  return { siteId, credential: { 'x-api-key': apiKey } };
}

/**
 * The OAuth endpoint's caller: by the key, as `X-API-Key` or `Authorization: Bearer <key>`, exactly as
 * the key endpoint's (no challenge), else by an access token issued for this endpoint. Without either,
 * or with a token that is no good, `401` with a challenge that points to the resource's metadata.
 */
export async function checkOAuthCaller(event: ApiEvent): Promise<CheckedCaller> {
  checkOrigin(event);
  const token = bearerOf(event.headers.authorization);
  if (event.headers['x-api-key'] || token?.startsWith(API_KEY_PREFIX)) return checkCaller(event);
  const base = baseUrlOf(event);
  if (!token) throw tokenRequired(base, 'mcp', 'Sign in: send an OAuth access token as Authorization: Bearer', false);
  const owner = await ownerOfToken(token, base);
  if (!owner || owner.resource !== 'mcp')
    throw tokenRequired(
      base,
      'mcp',
      'The access token is not valid (unknown, expired, revoked, or for another resource)',
      true,
    );
  return { siteId: owner.siteId, credential: { authorization: `Bearer ${token}` }, scopes: owner.scopes };
}
