import { readFileSync } from 'node:fs';
import type Provider from 'oidc-provider';
import type { ClientMetadata, Configuration, errors as OidcErrors, KoaContextWithOIDC } from 'oidc-provider';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  OAUTH_ENDPOINTS,
  OAUTH_SCOPE_NAMES,
  oauthResources,
  RESOURCE_SCOPES,
  resourceNamed,
} from '@cm/contract';
import { isPrivateUseScheme, redirectUriRefusal, redirectUriRegistered } from '@cm/core';
import { accountOf, siteOfKeyHash } from '../bearer';
import { getConfig, type OAuthConfig } from '../config';
import { originAllowed } from '../cross-origin';
import { dynamoAdapter, secretMatches } from './adapter';
import { registrationId } from './registration';
import { clientDocumentFetch } from './client-documents';
import { consentRoutes, renderError } from './consent';
import { oauthOnly } from './oauth-only';
import { cookieKeys, signingKey } from './secrets';
import { readSecretText } from '../secrets';

/*
 * The authorization server (docs/api.md#oauth): panva's oidc-provider, an OpenID Certified
 * implementation, configured as a pure OAuth 2.1 server for this deployment's two protected
 * resources: the authorization code flow with PKCE (S256 only), clients by Client ID Metadata
 * Document or Dynamic Client Registration, resource indicators (RFC 8707), refresh-token rotation and
 * revocation (RFC 7009). Its state is on the single table (adapter.ts), its consent page is ours
 * (consent.ts), and the account it signs in is a site, by the site's API key.
 */

const DAY = 86_400;

/** How long a thing of the authorization server lasts, in seconds. */
const TTL = {
  AccessToken: ACCESS_TOKEN_TTL_SECONDS,
  /** A code is used at once, and once (RFC 9700 §4.5: short-lived, one use). */
  AuthorizationCode: 60,
  /** A refresh token is rotated at each use: this is how long one may sit unused. */
  RefreshToken: 30 * DAY,
  /** The consent page is filled in within this. */
  Interaction: 600,
  /** The browser's sign-in lasts only for the authorization it is made for: the key is asked each time. */
  Session: 600,
  /** A grant, and so the refresh tokens it rotates through, lasts this long unless revoked. */
  Grant: 365 * DAY,
} as const;

/**
 * A client's redirect URIs must each be https, http to this machine, or a native app's private-use
 * scheme; refused otherwise. A client that names a private-use scheme is a native app (RFC 8252 §7.1),
 * whatever `application_type` it gave or left out: oidc-provider takes such a scheme only of one.
 */
const redirectUriCheck =
  (errors: typeof OidcErrors) =>
  (_ctx: unknown, _key: string, value: unknown, metadata: ClientMetadata): void => {
    const uris = Array.isArray(value) ? value : [];
    for (const uri of uris) {
      const refusal = typeof uri === 'string' ? redirectUriRefusal(uri) : 'a redirect URI must be a string';
      // RFC 7591 §3.2.2: invalid_redirect_uri, saying which and why (its own description is about authorization).
      if (refusal) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: refusal });
    }
    if (uris.some((uri) => typeof uri === 'string' && isPrivateUseScheme(new URL(uri))))
      metadata.application_type = 'native';
  };

/** The authorization server's configuration for the deployment at `base` (its issuer). */
function configurationOf(
  base: string,
  settings: OAuthConfig & { secret: string },
  errors: typeof OidcErrors,
  request: () => KoaContextWithOIDC | undefined,
): Configuration {
  const ca = settings.clientMetadataCaFile ? readFileSync(settings.clientMetadataCaFile) : undefined;
  return {
    adapter: dynamoAdapter(errors, request),
    clients: [],
    cookies: {
      keys: cookieKeys(settings.secret),
      long: { httpOnly: true, sameSite: 'lax', secure: base.startsWith('https:') },
      short: { httpOnly: true, sameSite: 'lax', secure: base.startsWith('https:') },
    },
    jwks: { keys: [signingKey(settings.secret)] },
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'EdDSA',
    },
    responseTypes: ['code'],
    scopes: [...OAUTH_SCOPE_NAMES],
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // Not offered: no resource server here checks a DPoP proof, so none issues a DPoP-bound token (decisions.md).
      dPoP: { enabled: false },
      revocation: { enabled: true },
      // Dynamic Client Registration (deprecated by MCP 2026-07-28, still what several hosts use): open, as
      // MCP expects; a registered client's secret is stored as its hash.
      registration: {
        enabled: true,
        issueRegistrationAccessToken: false,
        // An identical public registration names the same client (registration.ts).
        idFactory: (ctx) => registrationId(ctx.oidc.body),
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: DAY },
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource is asking for the MCP endpoint's.
        defaultResource: async () => oauthResources(base).mcp,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const resource = resourceNamed(base, indicator);
          if (!resource) throw new errors.InvalidTarget(`${indicator} is not a resource of this server`);
          return {
            scope: RESOURCE_SCOPES[resource].join(' '),
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    // The client metadata document is fetched as url research fetches a page (public addresses only).
    fetch: clientDocumentFetch({ allowLoopback: settings.clientMetadataLoopbackDevOnly, ca }),
    extraClientMetadata: { properties: ['redirect_uris'], validator: redirectUriCheck(errors) },
    pkce: { required: () => true },
    // A browser-based client calls the token and revocation endpoints from an origin the MCP endpoint allows.
    clientBasedCORS: (_ctx, origin) => originAllowed(origin),
    renderError,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the browser's sign-in (kept only for the authorization): the grant and the key bound them.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: TTL,
    routes: {
      authorization: OAUTH_ENDPOINTS.authorization,
      token: OAUTH_ENDPOINTS.token,
      registration: OAUTH_ENDPOINTS.registration,
      revocation: OAUTH_ENDPOINTS.revocation,
      jwks: OAUTH_ENDPOINTS.jwks,
    },
    interactions: { url: (_ctx, interaction) => OAUTH_ENDPOINTS.consent.replace('{uid}', interaction.uid) },
    // The account is a site and the key its owner signed in with: gone with the key.
    findAccount: async (_ctx: KoaContextWithOIDC, accountId: string) => {
      const account = accountOf(accountId);
      if (!account || (await siteOfKeyHash(account.keyHash, account.siteId)) !== account.siteId) return undefined;
      return { accountId, claims: () => ({ sub: accountId }) };
    },
  };
}

const providers = new Map<string, Provider>();

/**
 * The authorization server of the deployment at `base`, made once per container. oidc-provider (with
 * Koa and jose) loads with the first request, not where the handler is imported.
 */
export async function providerOf(base: string): Promise<Provider> {
  let provider = providers.get(base);
  if (provider) return provider;
  const settings = getConfig().oauth;
  // Read once per container: the keys made from it sign what this provider issues.
  const secret = settings.secret ?? (settings.secretId ? await readSecretText(settings.secretId) : undefined);
  if (!secret)
    throw new Error(
      'neither OAUTH_SECRET nor OAUTH_SECRET_ARN is set: the authorization server has no key to sign with',
    );
  const oidc = await import('oidc-provider');
  provider = new oidc.default(
    base,
    configurationOf(base, { ...settings, secret }, oidc.errors, () => oidc.default.ctx),
  );
  // Behind CloudFront and API Gateway: the scheme is the one x-forwarded-proto names.
  provider.proxy = true;
  // RFC 8252 §7.3: a loopback redirect URI matches on any port, whatever the client's application_type
  // (Claude Code's metadata document names no port and no type; VS Code registers one port, then takes another).
  provider.Client.prototype.redirectUriAllowed = function registered(this: { redirectUris?: readonly string[] }, uri) {
    return redirectUriRegistered(this.redirectUris ?? [], uri);
  };
  // A registered client's secret is stored as its hash (adapter.ts): it is compared as one.
  provider.Client.prototype.compareClientSecret = function compareHashed(this: { clientSecret?: string }, actual) {
    return secretMatches(this.clientSecret, actual);
  };
  provider.use(oauthOnly);
  provider.use(consentRoutes(provider, base, secret));
  providers.set(base, provider);
  return provider;
}
