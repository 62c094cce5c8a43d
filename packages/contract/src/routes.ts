import * as z from 'zod/mini';
import { ErrorBody } from './errors';
import { HealthQuery, HealthReply } from './common';
import { NotifyInput, NotifyResult } from './notify';
import { TOOL_LIST, ToolListing, type ToolDeclaration } from './tools';
import { JobQuery, JobView } from './research';
import { UsageQuery, UsageReport } from './usage';
import { BudgetInput, BudgetView } from './budget';
import { MonitoringInput, MonitoringView } from './monitoring';
import { SearchConsoleInput, SearchConsoleView } from './search-console';
import { MCP_OAUTH_PATH, MCP_PATH, ROUTE_TABLE, routeKey, SITE_ROOTS, type RouteFacts } from './route-table';
import { PROTECTED_RESOURCE_METADATA_PATH } from './oauth';
import {
  ArticleInput,
  ArticleRecord,
  CommunityAnswerCreated,
  CommunityAnswerInput,
  ListingQuery,
  PageList,
  PageListQuery,
  PublishResult,
  QuestionInput,
  QuestionRecord,
  SummaryInput,
} from './pages';
import { PageRedirects, RenameInput } from './redirects';
import { RevisionList, RevisionListQuery } from './revisions';

export interface Reply {
  description: string;
  schema?: z.ZodMiniType;
  contentType?: string;
}

/** What the OpenAPI document tells of a route besides its facts. */
export interface RouteDocs {
  summary: string;
  body?: z.ZodMiniType;
  query?: z.ZodMiniObject;
  replies: Record<number, Reply>;
}

export type Route = RouteFacts & RouteDocs;

const html = (description: string): Reply => ({ description, contentType: 'text/html; charset=utf-8' });

const VISITOR_REPLIES: Record<number, Reply> = {
  200: html('The rendered page, with ETag, Last-Modified and Cache-Control'),
  304: {
    description:
      'Not modified: If-None-Match names the current ETag or, without it, If-Modified-Since is not before Last-Modified',
  },
  301: html(
    'An old slug of a renamed page, or the path with a slash at the end: Location is where the page is now (docs/api/publishing.md#renaming-a-page)',
  ),
  404: html('Draft, unpublished or unknown'),
  410: html('Deleted'),
};

const LISTING_REPLIES: Record<number, Reply> = {
  200: html(
    'The listing page: live pages as cards, newest first, with a link to the older ones; ETag and Cache-Control',
  ),
  301: html('The path with a slash at the end (not the home): Location is the listing without it'),
  304: { description: 'Not modified: If-None-Match names the current ETag' },
  404: html('No such site, section with live pages, or cursor'),
};

const file = (description: string, contentType: string): Record<number, Reply> => ({
  200: { description: `${description}, with ETag and Cache-Control`, contentType },
  304: { description: 'Not modified: If-None-Match names the current ETag' },
  404: { description: 'No such site, or sitemap', schema: ErrorBody },
});

/**
 * At a site's own domain, a file that is not there answers the site's 404 page, as an unknown page path
 * there does (JSON's error shape to a client that asks for JSON); under `/sites/{site_id}` it stays the
 * API's error.
 */
const DOMAIN_FILE_MISSING = html("The site's 404 page: no such file (no site serves this domain: a bare 404 page)");
const atDomain = (docs: RouteDocs): RouteDocs =>
  docs.replies[404]?.schema === ErrorBody ? { ...docs, replies: { ...docs.replies, 404: DOMAIN_FILE_MISSING } } : docs;

/** What each of a site's pages and files is, below its root (route-table.ts SITE_ROOTS). */
const SITE_DOCS: Record<string, RouteDocs> = {
  '': { summary: "The site's home: its latest articles and questions", query: ListingQuery, replies: LISTING_REPLIES },
  '/articles/{slug}': { summary: 'The article as readers see it', replies: VISITOR_REPLIES },
  '/questions/{slug}': { summary: 'The question page as readers see it', replies: VISITOR_REPLIES },
  '/questions': { summary: "The index of the site's questions", query: ListingQuery, replies: LISTING_REPLIES },
  '/categories/{section}': {
    summary: "A category's articles (its name as one segment, as breadcrumbs link it)",
    query: ListingQuery,
    replies: LISTING_REPLIES,
  },
  '/topics/{section}': { summary: "A topic's questions", query: ListingQuery, replies: LISTING_REPLIES },
  '/sitemap.xml': {
    summary: 'The sitemap index: the sitemap of listing pages, and one per month of first publishes',
    replies: file('A sitemap index (sitemaps.org 0.9)', 'application/xml; charset=utf-8'),
  },
  '/sitemaps/{sitemap}': {
    summary: '`listings.xml`, or a month of first publishes (`2026-11.xml`): its live, indexable pages with lastmod',
    replies: file('A sitemap (sitemaps.org 0.9)', 'application/xml; charset=utf-8'),
  },
  '/feed.xml': {
    summary: "The site's latest articles",
    replies: file('An Atom feed (RFC 4287)', 'application/atom+xml; charset=utf-8'),
  },
};

/** What only a site's own domain has (route-table.ts DOMAIN_PATHS). */
const DOMAIN_DOCS: Record<string, RouteDocs> = {
  '/robots.txt': {
    summary: "At the site's own domain: crawlers may read every page; where its sitemap is",
    replies: {
      200: { description: 'robots.txt (RFC 9309)', contentType: 'text/plain; charset=utf-8' },
      404: DOMAIN_FILE_MISSING,
    },
  },
  '/favicon.ico': {
    summary: "At the site's own domain: the pages' icon",
    replies: { 200: { description: 'The icon', contentType: 'image/svg+xml' } },
  },
  '/{file}': {
    summary:
      "At the site's own domain: its IndexNow key file (`/<key>.txt`, the key); any other path of one segment is the 404 page",
    replies: {
      200: { description: 'The IndexNow key, as the protocol asks', contentType: 'text/plain; charset=utf-8' },
      404: DOMAIN_FILE_MISSING,
    },
  },
  '/{proxy+}': {
    summary: "At the site's own domain, any other path: the reader's 404 page",
    replies: { 404: html('Not found') },
  },
};

/** A JSON-RPC 2.0 message, or a batch of them (the MCP SDK validates them in detail). */
const MCP_MESSAGE = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0') }),
  z.array(z.looseObject({ jsonrpc: z.literal('2.0') })),
]);
const MCP_405: Reply = { description: 'method_not_allowed: the endpoint is stateless, POST only', schema: ErrorBody };

/** RFC 9728 protected resource metadata. */
const ProtectedResourceMetadata = z.looseObject({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
});
/** A document of the authorization server's own (oidc-provider's): metadata, tokens, a client. */
const OAUTH_DOCUMENT = z.record(z.string(), z.unknown());
/** An OAuth error (RFC 6749 §5.2), the authorization server's shape, not the API's. */
const OAUTH_ERROR = z.looseObject({ error: z.string(), error_description: z.optional(z.string()) });

const PUBLISH_REPLIES = {
  200: { description: 'Replaced the page with that slug', schema: PublishResult },
  201: { description: 'Created a page', schema: PublishResult },
} as const satisfies Record<number, Reply>;

const PAGE_REDIRECTS_REPLY = {
  description: "The page's slug and the old slugs that redirect to it",
  schema: PageRedirects,
};

/** Renaming a page of a type, and its old slugs' redirects (docs/api/publishing.md#renaming-a-page). */
const renameDocs = (type: 'article' | 'question') => ({
  summary: `Rename a ${type}: it keeps its id; its old URL answers 301 to the new one and the old slug stays reserved until its redirect is removed. 409 already_exists when another page holds or reserves the slug`,
  body: RenameInput,
  replies: { 200: PAGE_REDIRECTS_REPLY },
});
const redirectsDocs = (type: 'article' | 'question') => ({
  summary: `The ${type}'s slug and the old slugs that redirect to it`,
  replies: { 200: PAGE_REDIRECTS_REPLY },
});
const unredirectDocs = (type: 'article' | 'question') => ({
  summary: `Remove the redirect of an old slug of the ${type}: its old URL answers 404 and the slug is free again`,
  replies: { 200: PAGE_REDIRECTS_REPLY },
});
/** A page's revisions (docs/api/publishing.md#revisions). */
const revisionsDocs = (type: 'article' | 'question') =>
  ({
    summary: `The ${type}'s revisions (the versions its publishes replaced), newest first, and its live revision`,
    query: RevisionListQuery,
    replies: { 200: { description: 'A page of its revisions', schema: RevisionList } },
  }) as const;
const restoreDocs = (type: 'article' | 'question') =>
  ({
    summary: `Roll the ${type} back to a revision: publish it again (the version it replaces is kept as a revision; a repeat changes nothing)`,
    replies: { 200: { description: 'Published', schema: PublishResult } },
  }) as const;

/**
 * Each route's documentation, by route key; the tools' routes are documented from the tool registry.
 * Each keeps its own schemas' types (RouteDeclarations), so a typed client reads its body and replies here.
 */
const DOCS = {
  'GET /health': {
    summary: 'Liveness; with deep=1, also that the table can be reached',
    query: HealthQuery,
    replies: {
      200: { description: '{"ok":true}', schema: HealthReply },
      503: {
        description: 'deep=1 and the table cannot be reached: service_unavailable, with Retry-After',
        schema: ErrorBody,
      },
    },
  },
  'GET /openapi.json': {
    summary: 'This document',
    replies: { 200: { description: 'OpenAPI 3.1' } },
  },
  'GET /favicon.ico': {
    summary: "The visitor pages' icon, which browsers ask for at the root of every site they show",
    replies: { 200: { description: 'An SVG icon', contentType: 'image/svg+xml' } },
  },
  'GET /robots.txt': {
    summary: "For crawlers: the visitor pages may be crawled; the API's routes and the dashboard may not",
    replies: { 200: { description: 'robots.txt (RFC 9309)', contentType: 'text/plain; charset=utf-8' } },
  },
  'POST /articles': {
    summary: 'Publish an article: upsert by slug',
    body: ArticleInput,
    replies: PUBLISH_REPLIES,
  },
  'POST /questions': {
    summary: "Publish a question page: upsert by slug; the editor's answer and its sources are replaced whole",
    body: QuestionInput,
    replies: PUBLISH_REPLIES,
  },
  'GET /articles': {
    summary: 'List articles, newest updated_at first; with ?slug= the one article',
    query: PageListQuery,
    replies: {
      200: { description: 'A page of the list, or with slug the article', schema: z.union([PageList, ArticleRecord]) },
    },
  },
  'GET /articles/{id}': {
    summary: 'Read an article',
    replies: { 200: { description: 'The article', schema: ArticleRecord } },
  },
  'GET /questions': {
    summary: 'List questions, newest updated_at first; with ?slug= the one question',
    query: PageListQuery,
    replies: {
      200: {
        description: 'A page of the list, or with slug the question',
        schema: z.union([PageList, QuestionRecord]),
      },
    },
  },
  'GET /questions/{id}': {
    summary: 'Read a question',
    replies: { 200: { description: 'The question', schema: QuestionRecord } },
  },
  'POST /articles/{id}/rename': renameDocs('article'),
  'POST /questions/{id}/rename': renameDocs('question'),
  'GET /articles/{id}/redirects': redirectsDocs('article'),
  'GET /questions/{id}/redirects': redirectsDocs('question'),
  'DELETE /articles/{id}/redirects/{slug}': unredirectDocs('article'),
  'DELETE /questions/{id}/redirects/{slug}': unredirectDocs('question'),
  'GET /articles/{id}/revisions': revisionsDocs('article'),
  'GET /questions/{id}/revisions': revisionsDocs('question'),
  'POST /articles/{id}/revisions/{revision_id}/restore': restoreDocs('article'),
  'POST /questions/{id}/revisions/{revision_id}/restore': restoreDocs('question'),
  'PUT /questions/{id}/summary': {
    summary: 'Set the site-owned summary of a question (publishes never touch it)',
    body: SummaryInput,
    replies: { 200: { description: 'The question', schema: QuestionRecord } },
  },
  'POST /questions/{id}/answers': {
    summary: "Add a community answer kept beside the editor's answer (publishes never touch it)",
    body: CommunityAnswerInput,
    replies: { 201: { description: 'Stored', schema: CommunityAnswerCreated } },
  },
  'POST /api/content/notify': {
    summary: 'The site reports that a page the editor service published changed (edit, status change, delete)',
    body: NotifyInput,
    replies: { 200: { description: 'Applied, or ignored as stale or unknown', schema: NotifyResult } },
  },
  'GET /dashboard': {
    summary: 'The dashboard: a page that asks for the API key and calls this API with it; it holds no site data',
    replies: { 200: html('The dashboard app') },
  },
  'GET /dashboard/assets/{file}': {
    summary: "The dashboard's script, styles and icon, named by a hash of their content (cached for a year)",
    replies: {
      200: { description: 'The file', contentType: 'text/javascript; charset=utf-8' },
      404: { description: 'No such file', schema: ErrorBody },
    },
  },
  'GET /v1/tools': {
    summary: 'The research tools, each with a description and a JSON Schema of its parameters',
    replies: { 200: { description: 'Every tool', schema: ToolListing } },
  },
  'POST /v1/tools/{name}': {
    summary: 'Any other name: 404 unknown_tool',
    replies: { 404: { description: 'unknown_tool', schema: ErrorBody } },
  },
  'GET /v1/jobs/{job_id}': {
    summary:
      'A queued research job: queued, running, succeeded (with its result) or failed; wait_ms waits for it to end',
    query: JobQuery,
    replies: { 200: { description: 'The job', schema: JobView } },
  },
  'GET /v1/usage': {
    summary: 'Paid provider calls of this site, summed per tool and provider',
    query: UsageQuery,
    replies: { 200: { description: 'The sums', schema: UsageReport } },
  },
  'GET /v1/budget': {
    summary:
      "This site's spend limits per UTC day and month, with what each window has spent and reserved and when it resets",
    replies: { 200: { description: 'The budget', schema: BudgetView } },
  },
  'PUT /v1/budget': {
    summary:
      "Sets this site's daily and monthly spend limits and its approval threshold in USD (null: none; a field left out is unchanged); paid calls that would pass a limit are 402 budget_exceeded, and those estimated above confirm_above_usd 428 approval_required",
    body: BudgetInput,
    replies: { 200: { description: 'The budget as it is now', schema: BudgetView } },
  },
  'GET /v1/monitoring': {
    summary:
      "What this site's daily monitoring takes (its own domain and each active competitor) and what a month of it costs at list prices, and whether its competitor monitoring is paused",
    replies: { 200: { description: 'The monitoring', schema: MonitoringView } },
  },
  'PUT /v1/monitoring': {
    summary:
      "Pauses (competitors_paused: true) or resumes this site's competitor monitoring: while paused, its daily runs take only its own domain",
    body: MonitoringInput,
    replies: { 200: { description: 'The monitoring as it is now', schema: MonitoringView } },
  },
  'GET /v1/search-console': {
    summary: "This site's Search Console connection: its property, status, the account to add and the verification",
    replies: {
      200: { description: 'The connection', schema: SearchConsoleView },
      404: { description: 'not_found: the site has no connection', schema: ErrorBody },
    },
  },
  'PUT /v1/search-console': {
    summary:
      "Connects this site's Search Console property (its own domain's), or changes it or its verification token: the site's domain serves the verification, and the last 56 days are imported, then each day (free)",
    body: SearchConsoleInput,
    replies: { 200: { description: 'The connection as it is now', schema: SearchConsoleView } },
  },
  'DELETE /v1/search-console': {
    summary:
      'Disconnects Search Console: no more imports; the days imported stay until they are 400 days old, and the verification stays served',
    replies: {
      200: { description: 'Disconnected: the connection as it was', schema: SearchConsoleView },
      404: { description: 'not_found: the site has no connection', schema: ErrorBody },
    },
  },
  [`POST ${MCP_PATH}`]: {
    summary:
      'The Model Context Protocol endpoint (Streamable HTTP, stateless; JSON responses, an event stream for a call that asks for progress): the research tools plus get_job, get_usage, find_pages, list_revisions and restore_revision, the MCP Apps and large results as resources, research as a task. X-API-Key or Authorization: Bearer',
    body: MCP_MESSAGE,
    replies: {
      200: { description: 'A JSON-RPC response', schema: MCP_MESSAGE },
      202: { description: 'A notification or response, accepted' },
    },
  },
  [`GET ${MCP_PATH}`]: { summary: 'No SSE stream: 405 method_not_allowed', replies: { 405: MCP_405 } },
  [`DELETE ${MCP_PATH}`]: { summary: 'No sessions: 405 method_not_allowed', replies: { 405: MCP_405 } },
  [`POST ${MCP_OAUTH_PATH}`]: {
    summary:
      'The same MCP server, advertising OAuth (docs/api.md#oauth): Authorization: Bearer with an access token issued for this endpoint (401 with a WWW-Authenticate challenge that points to its protected resource metadata without one; 403 insufficient_scope for a call the token has no scope for), or X-API-Key, served as on /mcp and never challenged',
    body: MCP_MESSAGE,
    replies: {
      200: { description: 'A JSON-RPC response', schema: MCP_MESSAGE },
      202: { description: 'A notification or response, accepted' },
      401: {
        description: 'unauthorized, with WWW-Authenticate: Bearer resource_metadata=…, scope=…',
        schema: ErrorBody,
      },
      403: { description: 'insufficient_scope, with a step-up challenge', schema: ErrorBody },
    },
  },
  [`GET ${MCP_OAUTH_PATH}`]: { summary: 'No SSE stream: 405 method_not_allowed', replies: { 405: MCP_405 } },
  [`DELETE ${MCP_OAUTH_PATH}`]: { summary: 'No sessions: 405 method_not_allowed', replies: { 405: MCP_405 } },
  [`GET ${PROTECTED_RESOURCE_METADATA_PATH}`]: {
    summary:
      "RFC 9728 protected resource metadata of the MCP endpoint that advertises OAuth (the root's, where clients look)",
    replies: { 200: { description: 'The metadata', schema: ProtectedResourceMetadata } },
  },
  [`GET ${PROTECTED_RESOURCE_METADATA_PATH}${MCP_OAUTH_PATH}`]: {
    summary: `RFC 9728 protected resource metadata of ${MCP_OAUTH_PATH}`,
    replies: { 200: { description: 'The metadata', schema: ProtectedResourceMetadata } },
  },
  [`GET ${PROTECTED_RESOURCE_METADATA_PATH}/v1`]: {
    summary: 'RFC 9728 protected resource metadata of the REST API (the resource <base>/v1)',
    replies: { 200: { description: 'The metadata', schema: ProtectedResourceMetadata } },
  },
  'GET /.well-known/oauth-authorization-server': {
    summary: "RFC 8414 metadata of the authorization server (its issuer is the deployment's base URL)",
    replies: { 200: { description: 'The metadata', schema: OAUTH_DOCUMENT } },
  },
  'GET /.well-known/openid-configuration': {
    summary: 'The same metadata, where OpenID Connect clients look for it',
    replies: { 200: { description: 'The metadata', schema: OAUTH_DOCUMENT } },
  },
  'GET /oauth/authorize': {
    summary:
      'The authorization endpoint: the authorization code flow with PKCE (S256 only), a resource indicator (RFC 8707) and an exact redirect URI; it sends the browser to the consent page',
    replies: {
      303: { description: 'To the consent page, or back to the client with an error' },
      400: html('An error shown to the browser: the client or its redirect URI is unknown, so it cannot be sent back'),
    },
  },
  'GET /oauth/authorize/{uid}': {
    summary: 'Where the consent page sends the browser to finish: back to the client with its code (and iss, RFC 9207)',
    replies: {
      303: { description: "To the client's redirect URI" },
      400: html('An error shown to the browser: the sign-in is unknown or expired'),
    },
  },
  'GET /oauth/consent/{uid}': {
    summary:
      "The consent page: the client's name, its redirect host and the scopes it asks for, and a form for the site's API key",
    replies: { 200: html('The page'), 400: html('The sign-in expired or is unknown') },
  },
  'POST /oauth/consent/{uid}': {
    summary:
      "The consent form (application/x-www-form-urlencoded: csrf, api_key, decision=approve|deny): approved with a valid key, the client is given a code for the key's site",
    replies: {
      303: { description: 'On to finish the authorization' },
      400: html('The sign-in expired or is unknown'),
      401: html('Not a valid API key: the page again'),
      403: html('The form did not come from the consent page'),
    },
  },
  'POST /oauth/token': {
    summary:
      'The token endpoint (form-encoded): authorization_code with code_verifier, refresh_token (rotated: a reused one revokes its grant)',
    replies: {
      200: { description: 'access_token (an hour), refresh_token, scope, token_type Bearer', schema: OAUTH_DOCUMENT },
      400: { description: 'An OAuth error (invalid_grant, invalid_request, invalid_target …)', schema: OAUTH_ERROR },
      401: { description: 'invalid_client: the client did not authenticate as registered', schema: OAUTH_ERROR },
    },
  },
  'POST /oauth/register': {
    summary: 'Dynamic Client Registration (RFC 7591): redirect URIs https, or http to a loopback address',
    replies: {
      201: {
        description: 'The client, with its client_id (and client_secret, shown only now)',
        schema: OAUTH_DOCUMENT,
      },
      400: { description: 'invalid_redirect_uri, invalid_client_metadata', schema: OAUTH_ERROR },
    },
  },
  'POST /oauth/revoke': {
    summary: 'Token revocation (RFC 7009): an access or refresh token',
    replies: {
      200: { description: 'Revoked (or it was not a token of the client)' },
      400: { description: 'An OAuth error (invalid_request …)', schema: OAUTH_ERROR },
      401: { description: 'invalid_client: the client did not authenticate as registered', schema: OAUTH_ERROR },
    },
  },
  'GET /oauth/jwks': {
    summary: "The authorization server's public signing key",
    replies: { 200: { description: 'A JWK set', schema: OAUTH_DOCUMENT } },
  },
} as const satisfies Record<string, RouteDocs>;

/** The documented routes by key, each with its own body, query and reply schemas' types (ROUTES has them at run time). */
export type RouteDeclarations = typeof DOCS;

const toolDocs = (tool: ToolDeclaration): RouteDocs => ({
  summary: tool.description,
  body: tool.input,
  replies: { 200: { description: `The result of ${tool.name}`, schema: tool.result } },
});

/** The route table with each route's documentation; a route without any, or documentation of no route, is an error. */
export function withDocs(table: readonly RouteFacts[], docs: ReadonlyMap<string, RouteDocs>): Route[] {
  const routes: Route[] = [];
  const undocumented: string[] = [];
  for (const facts of table) {
    const routeDocs = docs.get(routeKey(facts));
    if (routeDocs) routes.push({ ...facts, ...routeDocs });
    else undocumented.push(routeKey(facts));
  }
  if (undocumented.length > 0) throw new Error(`routes.ts has no documentation of ${undocumented.join(', ')}`);
  const keys = new Set(table.map(routeKey));
  const strays = [...docs.keys()].filter((key) => !keys.has(key));
  if (strays.length > 0) throw new Error(`routes.ts documents ${strays.join(', ')}, which the route table lacks`);
  return routes;
}

/** Every route of the route table (route-table.ts) with its documentation: the OpenAPI document is built from it. */
export const ROUTES: readonly Route[] = withDocs(
  ROUTE_TABLE,
  new Map<string, RouteDocs>([
    ...Object.entries(DOCS),
    ...SITE_ROOTS.flatMap((root) =>
      Object.entries(SITE_DOCS).map(
        ([path, docs]) =>
          [
            routeKey({ method: 'GET', path: `${root}${path}` }),
            root === '/domains/{host}' ? atDomain(docs) : docs,
          ] as const,
      ),
    ),
    ...Object.entries(DOMAIN_DOCS).map(
      ([path, docs]) => [routeKey({ method: 'GET', path: `/domains/{host}${path}` }), docs] as const,
    ),
    ...TOOL_LIST.map((tool) => [routeKey({ method: 'POST', path: `/v1/tools/${tool.name}` }), toolDocs(tool)] as const),
  ]),
);
