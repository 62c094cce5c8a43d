import { MCP_TOOL_NAMES, ROUTE_TABLE, routeKey, scopeOfRoute, scopeOfTool } from '@cm/contract';
import { accountIdOf, accountOf } from '../../packages/runtime/src/bearer';
import { consentToken, consentTokenMatches, signingKey } from '../../packages/runtime/src/oauth/secrets';

/* OAuth's rules that need no server (redirect URIs: redirect-uris.test.ts): what each call asks of a token, the account, the secrets. */

it('asks read of the read-only tools, research of the paid ones, write of the free writes, and nothing of the budget', () => {
  expect(Object.fromEntries(MCP_TOOL_NAMES.map((name) => [name, scopeOfTool(name)]))).toEqual({
    research: 'research',
    recall: 'read',
    get_keywords: 'research',
    serp_landscape: 'research',
    serp_keyword_refresh: 'research',
    serp_backlinks: 'research',
    add_competitor: 'research',
    track_rankings: 'research',
    db_select: 'read',
    db_insert: 'write',
    db_delete: 'write',
    get_job: 'read',
    get_usage: 'read',
    find_pages: 'read',
  });
  const keyOnly = ROUTE_TABLE.filter((r) => r.auth && r.fn !== 'mcp' && scopeOfRoute(r) === null).map(routeKey);
  expect(keyOnly).toEqual(['PUT /v1/budget']);
  expect(scopeOfRoute({ method: 'POST', path: '/articles' })).toBe('publish');
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
