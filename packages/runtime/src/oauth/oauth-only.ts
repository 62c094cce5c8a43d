import type { KoaContextWithOIDC } from 'oidc-provider';
import { AUTHORIZATION_SERVER_METADATA_PATHS, isJsonObject, OAUTH_ENDPOINTS } from '@cm/contract';
import { renderError } from './consent';

/*
 * oidc-provider is an OpenID Connect provider at heart: this keeps it a plain OAuth 2.1 server
 * (docs/api.md#the-authorization-server). An authorization request's `openid` scope is ignored, as
 * a server may ignore a scope it does not grant (RFC 6749 §3.3), so no ID token is ever issued and no
 * account's subject leaves the server; and the metadata names none of OpenID Connect's claims. A
 * request that names `openid` alone asks for nothing this server grants: it is refused, not read as
 * naming no scope (which asks for all of the resource's).
 */

const [, OPENID_METADATA] = AUTHORIZATION_SERVER_METADATA_PATHS;

/** Metadata fields that only OpenID Connect defines (ID tokens, claims, subjects). */
const OIDC_METADATA = [
  'claims_supported',
  'claims_parameter_supported',
  'claim_types_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'request_uri_parameter_supported',
];

export async function oauthOnly(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  const scope = ctx.query.scope;
  if (ctx.path === OAUTH_ENDPOINTS.authorization && typeof scope === 'string') {
    const named = scope.split(' ').filter(Boolean);
    const kept = named.filter((s) => s !== 'openid');
    if (named.length && !kept.length) {
      ctx.status = 400;
      return renderError(ctx, {
        error: 'invalid_scope',
        error_description:
          'openid asks for an ID token, which this server does not issue; ask for a scope of the resource',
      });
    }
    const { scope: _scope, ...rest } = ctx.query;
    ctx.query = kept.length ? { ...rest, scope: kept.join(' ') } : rest;
  }
  await next();
  if (ctx.path !== OPENID_METADATA || !isJsonObject(ctx.body)) return;
  const metadata = ctx.body;
  for (const field of OIDC_METADATA) delete metadata[field];
  const scopes = metadata.scopes_supported;
  if (Array.isArray(scopes)) metadata.scopes_supported = scopes.filter((s) => s !== 'openid');
}
