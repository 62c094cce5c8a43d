import { mcpHeadOf, type McpToolName } from './mcp-tools';
import { MCP_OAUTH_PATH, routeKey, type RouteFacts } from './route-table';
import { TOOL_NAMES } from './tool-heads';

/*
 * OAuth 2.1 sign-in for agents (docs/api.md#oauth): what a token may do (its scopes), which resource
 * it is for (RFC 8707), where the authorization server's endpoints are, and what the protected
 * resource metadata (RFC 9728) says. The API key needs none of it: it may do everything its site may.
 */

/** The scopes a token may carry. */
export const OAUTH_SCOPE_NAMES = ['read', 'research', 'write', 'publish'] as const;
export type OAuthScope = (typeof OAUTH_SCOPE_NAMES)[number];

/** What each scope lets a client do, as the consent page says it. */
export const OAUTH_SCOPES: Record<OAuthScope, string> = {
  read: "Read the site's research, rows, pages, jobs, usage and budget (the read-only tools)",
  research: "Run the paid research tools, spending from the site's budget",
  write: "Add and delete rows of the site's research tables (db_insert, db_delete)",
  publish: "Publish the site's articles and question pages, and tell of their changes",
};

/** Whether a string names a scope. */
export const isOAuthScope = (value: string): value is OAuthScope => OAUTH_SCOPE_NAMES.some((scope) => scope === value);

/**
 * The scope an MCP tool asks of a token: the read-only tools `read`, the paid ones (which reach a
 * paid provider) `research`, the free writes (db_insert, db_delete) `write`, and a rollback
 * (restore_revision) `publish`, as the publish routes.
 */
export function scopeOfTool(name: McpToolName): OAuthScope {
  const { kind } = mcpHeadOf(name);
  if (kind === 'read' || kind === 'publish') return kind;
  return kind === 'paid' ? 'research' : 'write';
}

/** The scopes the MCP endpoint's tools ask for: what an MCP host asks of the site's owner. */
export const MCP_SCOPES: readonly OAuthScope[] = ['read', 'research', 'write', 'publish'];

/**
 * The scope each REST route asks of a token, by route key. A route that is not here takes the API key
 * only: setting the site's budget (`PUT /v1/budget`) and pausing or resuming its competitors' monitoring
 * (`PUT /v1/monitoring`) decide what it spends, which is the owner's, not an agent's; connecting or
 * disconnecting Search Console (`PUT`, `DELETE /v1/search-console`) decides what data the site reads.
 */
const restScopes = (): Record<string, OAuthScope> => ({
  'POST /articles': 'publish',
  'POST /questions': 'publish',
  'PUT /questions/{id}/summary': 'publish',
  'POST /questions/{id}/answers': 'publish',
  'POST /api/content/notify': 'publish',
  'POST /articles/{id}/rename': 'publish',
  'POST /questions/{id}/rename': 'publish',
  'DELETE /articles/{id}/redirects/{slug}': 'publish',
  'DELETE /questions/{id}/redirects/{slug}': 'publish',
  'GET /articles/{id}/redirects': 'read',
  'GET /questions/{id}/redirects': 'read',
  'GET /articles': 'read',
  'GET /articles/{id}': 'read',
  'GET /questions': 'read',
  'GET /questions/{id}': 'read',
  'GET /articles/{id}/revisions': 'read',
  'GET /questions/{id}/revisions': 'read',
  'POST /articles/{id}/revisions/{revision_id}/restore': 'publish',
  'POST /questions/{id}/revisions/{revision_id}/restore': 'publish',
  'GET /v1/tools': 'read',
  // An unknown tool's name: answered 404 unknown_tool.
  'POST /v1/tools/{name}': 'read',
  'GET /v1/jobs/{job_id}': 'read',
  'GET /v1/usage': 'read',
  'GET /v1/budget': 'read',
  'GET /v1/monitoring': 'read',
  'GET /v1/search-console': 'read',
  ...Object.fromEntries(TOOL_NAMES.map((name) => [`POST /v1/tools/${name}`, scopeOfTool(name)])),
});
// Marked pure so a bundle that asks no route's scope (the mcp function's index.js) leaves the table out.
const REST_SCOPES = /* @__PURE__ */ restScopes();

/** The scope a route asks of an OAuth token; null when it takes the API key only. */
export const scopeOfRoute = (route: Pick<RouteFacts, 'method' | 'path'>): OAuthScope | null =>
  REST_SCOPES[routeKey(route)] ?? null;

/**
 * The protected resources of a deployment at `base` (its public base URL), as RFC 8707 names them:
 * the MCP endpoint that advertises OAuth, and the REST API. An access token is for one of them; the
 * MCP endpoint takes only its own, the REST routes either (an MCP host's token works there too).
 */
export const oauthResources = (base: string) => ({ mcp: `${base}${MCP_OAUTH_PATH}`, rest: `${base}/v1` });
export type OAuthResource = keyof ReturnType<typeof oauthResources>;

/** Which resource of the deployment at `base` a resource indicator (an audience) names; undefined for any other. */
export function resourceNamed(base: string, indicator: unknown): OAuthResource | undefined {
  const resources = oauthResources(base);
  if (indicator === resources.mcp) return 'mcp';
  if (indicator === resources.rest) return 'rest';
  return undefined;
}

/** The scopes a token for each resource may carry. */
export const RESOURCE_SCOPES: Record<OAuthResource, readonly OAuthScope[]> = {
  mcp: MCP_SCOPES,
  rest: OAUTH_SCOPE_NAMES,
};

/** Where RFC 9728 puts a resource's metadata: the well-known path, then the resource's own path. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The authorization server's endpoints (its issuer is the deployment's public base URL). */
export const OAUTH_ENDPOINTS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  /** The page where the site's owner signs in with the key and approves or denies (`{uid}`: the interaction's). */
  consent: '/oauth/consent/{uid}',
  /** Where the consent page sends the browser back to, to finish the authorization. */
  resume: '/oauth/authorize/{uid}',
} as const;

/** The authorization server's metadata: RFC 8414's path, and OpenID Connect's, which some clients read instead. */
export const AUTHORIZATION_SERVER_METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

/**
 * Which browser pages may call each OAuth path (CORS), for the browser-based clients MCP allows: the
 * metadata and the signing keys any page (they are public); the endpoints that take a client's or a
 * token's requests only a page of an origin the MCP endpoint allows (docs/api.md#browser-based-clients).
 */
export const OAUTH_CORS: Readonly<Record<string, 'any' | 'allowed'>> = {
  [PROTECTED_RESOURCE_METADATA_PATH]: 'any',
  [`${PROTECTED_RESOURCE_METADATA_PATH}${MCP_OAUTH_PATH}`]: 'any',
  [`${PROTECTED_RESOURCE_METADATA_PATH}/v1`]: 'any',
  '/.well-known/oauth-authorization-server': 'any',
  '/.well-known/openid-configuration': 'any',
  [OAUTH_ENDPOINTS.jwks]: 'any',
  [OAUTH_ENDPOINTS.token]: 'allowed',
  [OAUTH_ENDPOINTS.revocation]: 'allowed',
  [OAUTH_ENDPOINTS.registration]: 'allowed',
  [MCP_OAUTH_PATH]: 'allowed',
};

/**
 * Wrong keys the consent page takes from one address in a window: past them, every key it posts is
 * refused `429` until the window ends, so the page is no oracle for guessing keys. A wrong key names no
 * site, so they are counted per address, for every site at once.
 */
export const CONSENT_KEY_ATTEMPTS = { limit: 10, windowSeconds: 600 } as const;

/** An access token's lifetime: short, so a token that leaks is good for little; the refresh token renews it. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * How long after a refresh token's first use a host may use it again, while the token that use answered
 * has not been used: a retry of a refresh whose answer was lost, answered anew instead of taken for a theft.
 */
export const REFRESH_TOKEN_REUSE_GRACE_SECONDS = 300;

/** The RFC 9728 metadata of one of a deployment's protected resources. */
export function protectedResourceMetadata(base: string, resource: OAuthResource) {
  return {
    resource: oauthResources(base)[resource],
    authorization_servers: [base],
    scopes_supported: [...RESOURCE_SCOPES[resource]],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'Content research (MCP)' : 'Content research API',
    resource_documentation: `${base}/openapi.json`,
  };
}
