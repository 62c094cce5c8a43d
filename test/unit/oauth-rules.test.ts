import { ApiError, MCP_TOOL_NAMES, ROUTE_TABLE, routeKey, scopeOfRoute, scopeOfTool } from '@cm/contract';
import { resetConfig, unroutedReply } from '@cm/runtime';
import { accountIdOf, accountOf } from '../../packages/runtime/src/bearer';
import { clientAddressOf } from '../../packages/runtime/src/client-address';
import { crossOrigin } from '../../packages/runtime/src/cross-origin';
import { clientDocumentFetch } from '../../packages/runtime/src/oauth/client-documents';
import { oauthOnly } from '../../packages/runtime/src/oauth/oauth-only';
import { consentToken, consentTokenMatches, signingKey } from '../../packages/runtime/src/oauth/secrets';
import { fakeClock } from '../helpers/clock';
import { apiEvent } from '../helpers/lambda-events';
import { given } from '../helpers/client';

/* OAuth's rules that need no server (redirect URIs: redirect-uris.test.ts): what each call asks of a token, the account, the secrets. */

it('asks read of the read-only tools, research of the paid ones, write of the free writes, publish of a rollback, and nothing of the budget', () => {
  expect(Object.fromEntries(MCP_TOOL_NAMES.map((name) => [name, scopeOfTool(name)]))).toEqual({
    research: 'research',
    recall: 'read',
    get_keywords: 'research',
    serp_landscape: 'research',
    serp_keyword_refresh: 'research',
    serp_backlinks: 'research',
    add_competitor: 'research',
    track_rankings: 'research',
    search_traffic: 'read',
    db_select: 'read',
    db_insert: 'write',
    db_delete: 'write',
    get_job: 'read',
    get_usage: 'read',
    find_pages: 'read',
    list_revisions: 'read',
    restore_revision: 'publish',
  });
  const keyOnly = ROUTE_TABLE.filter((r) => r.auth && r.fn !== 'mcp' && scopeOfRoute(r) === null).map(routeKey);
  expect(keyOnly).toEqual([
    'PUT /v1/budget',
    'PUT /v1/monitoring',
    'PUT /v1/search-console',
    'DELETE /v1/search-console',
  ]);
  expect(scopeOfRoute({ method: 'POST', path: '/articles' })).toBe('publish');
  expect(scopeOfRoute({ method: 'POST', path: '/articles/{id}/revisions/{revision_id}/restore' })).toBe('publish');
  expect(scopeOfRoute({ method: 'GET', path: '/v1/monitoring' })).toBe('read');
  expect(scopeOfRoute({ method: 'GET', path: '/v1/search-console' })).toBe('read');
});

it('names the site and the key in an account id, and reads back only ids it made', () => {
  const hash = 'a'.repeat(64);
  expect(accountOf(accountIdOf(12, hash))).toEqual({ siteId: 12, keyHash: hash });
  expect(accountOf('site:12:key:short')).toBeNull();
  expect(accountOf(`user:12:key:${hash}`)).toBeNull();
});

it("makes a consent token per interaction and a signing key from the deployment's secret, the same in every container", () => {
  expect(consentTokenMatches('s', 'uid-1', consentToken('s', 'uid-1'))).toBe(true);
  expect(consentTokenMatches('s', 'uid-2', consentToken('s', 'uid-1'))).toBe(false);
  expect(consentTokenMatches('other', 'uid-1', consentToken('s', 'uid-1'))).toBe(false);
  expect(consentTokenMatches('s', 'uid-1', undefined)).toBe(false);
  expect(signingKey('s')).toEqual(signingKey('s'));
  expect(signingKey('s')).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', d: expect.any(String) });
  expect(signingKey('s').d).not.toBe(signingKey('t').d);
});

/** What `run` throws, as the error it is. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('it threw nothing');
}

it('answers what no route takes: OPTIONS and 405 on an OAuth path, 404 elsewhere', () => {
  const reply = (method: string, path: string, headers: Record<string, string> = {}) =>
    unroutedReply(apiEvent(method, path, { headers }));
  // OPTIONS that is no preflight: what the path allows, and no CORS.
  expect(reply('OPTIONS', '/oauth/jwks')).toEqual({ statusCode: 204, headers: { allow: 'GET, HEAD, OPTIONS' } });
  // A preflight of the metadata from any page.
  expect(
    reply('OPTIONS', '/.well-known/oauth-protected-resource', {
      origin: 'https://any.example',
      'access-control-request-method': 'GET',
    }).headers,
  ).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' });
  // A preflight that asks for no header gets no header allowed.
  expect(
    reply('OPTIONS', '/oauth/token', { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' })
      .headers,
  ).not.toHaveProperty('access-control-allow-headers');
  // The authorization endpoint is a navigation: OPTIONS there is a method it does not take.
  const navigation = thrown(() => reply('OPTIONS', '/oauth/authorize'));
  expect(navigation).toBeInstanceOf(ApiError);
  expect(navigation).toMatchObject({ code: 'method_not_allowed', headers: { allow: 'GET, HEAD' } });
  expect(thrown(() => reply('POST', '/oauth/authorize/abc'))).toMatchObject({ headers: { allow: 'GET, HEAD' } });
  expect(thrown(() => reply('DELETE', '/articles'))).toMatchObject({ code: 'not_found' });
  expect(thrown(() => reply('OPTIONS', '/v1/tools'))).toMatchObject({ code: 'not_found' });
});

it('takes the client address from the source, and behind the edge from what CloudFront added', () => {
  const event = (forwarded?: string) =>
    apiEvent('POST', '/oauth/consent/x', { headers: forwarded ? { 'x-forwarded-for': forwarded } : {} });
  process.env.TABLE_NAME = 't';
  resetConfig();
  try {
    // Without the edge, X-Forwarded-For is anyone's to send.
    expect(clientAddressOf(event('198.51.100.1'))).toBe('203.0.113.7');
    process.env.ORIGIN_VERIFY = 'edge-secret';
    resetConfig();
    expect(clientAddressOf(event('198.51.100.1, 192.0.2.44'))).toBe('192.0.2.44');
    // API Gateway's own entry (the edge's address, the source) is not the viewer's.
    expect(clientAddressOf(event('198.51.100.1, 192.0.2.44, 203.0.113.7'))).toBe('192.0.2.44');
    expect(clientAddressOf(event())).toBe('203.0.113.7');
  } finally {
    delete process.env.TABLE_NAME;
    delete process.env.ORIGIN_VERIFY;
    resetConfig();
  }
});

it('remembers a client metadata document that could not be fetched for 10 s, so a request fetches it once', async () => {
  fakeClock(Date.UTC(2026, 0, 1));
  try {
    const fetchDocument = clientDocumentFetch({});
    // A loopback address is refused without a connection; each refusal is a new error when it is fetched.
    const url = 'https://127.0.0.1/client.json';
    const first = await fetchDocument(url).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(Error);
    expect(await fetchDocument(new URL(url)).catch((error: unknown) => error)).toBe(first);
    jest.setSystemTime(Date.now() + 10_000);
    const later = await fetchDocument(new Request(url)).catch((error: unknown) => error);
    expect(later).toBeInstanceOf(Error);
    expect(later).not.toBe(first);
  } finally {
    jest.useRealTimers();
  }
});

it('drops openid from an authorization request and OpenID Connect from the metadata', async () => {
  const through = async (path: string, query: Record<string, string>, body?: unknown) => {
    const ctx = { path, query, body };
    await oauthOnly(ctx as unknown as Parameters<typeof oauthOnly>[0], async () => undefined);
    return ctx;
  };
  expect((await through('/oauth/authorize', { scope: 'openid read', state: 's' })).query).toEqual({
    scope: 'read',
    state: 's',
  });
  // Only openid is refused (invalid_scope), never read as no scope: oauth.test.ts, "is no OpenID provider".
  expect((await through('/oauth/token', { scope: 'openid' })).query).toEqual({ scope: 'openid' });
  const metadata = await through(
    '/.well-known/openid-configuration',
    {},
    {
      issuer: 'https://x',
      scopes_supported: ['read', 'openid'],
      claims_supported: ['sub'],
      subject_types_supported: ['public'],
    },
  );
  expect(metadata.body).toEqual({ issuer: 'https://x', scopes_supported: ['read'] });
});

it('adds CORS to a reply of an OAuth path a page may call, keeping what the reply varies by', async () => {
  const corsOf = async (path: string, origin: string, headers: Record<string, string> = {}) => {
    const request = { event: apiEvent('POST', path, { headers: { origin } }), response: { statusCode: 200, headers } };
    await given(
      crossOrigin().after,
      'the after',
    )(request as unknown as Parameters<NonNullable<ReturnType<typeof crossOrigin>['after']>>[0]);
    return request.response.headers;
  };
  expect(await corsOf('/oauth/register', 'http://localhost:6274', { vary: 'Accept' })).toEqual({
    'access-control-allow-origin': 'http://localhost:6274',
    vary: 'Accept, Origin',
  });
  expect(await corsOf('/oauth/register', 'http://localhost:6274', { vary: 'origin' })).toMatchObject({
    vary: 'origin',
  });
  expect(await corsOf('/v1/tools', 'http://localhost:6274')).toEqual({});
  process.env.TABLE_NAME = 't';
  resetConfig();
  try {
    expect(await corsOf('/oauth/register', 'https://evil.example')).toEqual({});
  } finally {
    delete process.env.TABLE_NAME;
    resetConfig();
  }
});
