import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/client';
import { CONSENT_KEY_ATTEMPTS, MCP_OAUTH_PATH } from '@cm/contract';
import { OAuthStore } from '@cm/store';
import { accountIdOf } from '../../packages/runtime/src/bearer';
import { fakeClock } from '../helpers/clock';
import {
  CLIENT_DOCUMENTS_ON_LOOPBACK,
  Browser,
  csrfOf,
  signIn,
  submitConsent,
  TestOAuthProvider,
} from '../helpers/oauth';
import { requestPathCount, startTestStack, type TestStack } from '../helpers/local';
import { COUNTED_REQUESTS } from '../helpers/request-counts';
import { startTlsSite, type TlsSite } from '../helpers/tls-site';
import { given } from '../helpers/client';

/*
 * OAuth 2.1 sign-in as an MCP host does it, end to end on the local stack: discovery from the 401's
 * challenge, registration by a client metadata document (served over https on loopback, which the
 * stack is told to allow) and by Dynamic Client Registration, the consent page filled in and posted,
 * the code exchanged with PKCE by the SDK's own client provider, calls with the token, a refresh and a
 * revocation; and what is refused.
 */

let t: TestStack;
let documents: TlsSite;
let mcp: string;
const clients: Client[] = [];
const CALLBACK = 'http://127.0.0.1:53682/callback';
/** How many times each client metadata document was fetched. */
const fetched = new Map<string, number>();

beforeAll(async () => {
  documents = await startTlsSite('127.0.0.1', (req, res) => {
    const clientId = `https://127.0.0.1:${documents.port}${req.url}`;
    fetched.set(given(req.url, 'the url'), (fetched.get(given(req.url, 'the url')) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' });
    // Over the 5 KB a document may be: its fetch fails.
    if (req.url === '/oversized.json')
      return void res.end(JSON.stringify({ client_id: clientId, pad: 'x'.repeat(6_000) }));
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: 'Metadata document host',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  t = await startTestStack({ env: CLIENT_DOCUMENTS_ON_LOOPBACK });
  mcp = `${t.url}${MCP_OAUTH_PATH}`;
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
  await documents.close();
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const token = (fields: Record<string, string>, headers: Record<string, string> = {}) => {
  const request = form(fields);
  return fetch(`${t.url}/oauth/token`, { ...request, headers: { ...request.headers, ...headers } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));
};
/** A raw MCP call with a bearer token, as a host sends one. */
const mcpCall = (bearer: string, name: string, args: Record<string, unknown> = {}) =>
  fetch(mcp, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });

describe('OAuth sign-in', () => {
  it('signs a host in by its client metadata document, and serves it with the token; the key endpoint never challenges', async () => {
    // Discovery starts from the challenge; the key endpoint has none.
    const challenged = await fetch(mcp, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('www-authenticate')).toBe(
      `Bearer scope="read research write publish", resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp/oauth"`,
    );
    const keyOnly = await fetch(`${t.url}/mcp`, { method: 'POST', body: '{}', headers: { 'x-api-key': 'cmk_nope' } });
    expect(keyOnly.status).toBe(401);
    expect(keyOnly.headers.get('www-authenticate')).toBe('Bearer');

    const provider = new TestOAuthProvider(CALLBACK, `https://127.0.0.1:${documents.port}/client.json`);
    const { client, page } = await signIn(mcp, provider, t.key);
    clients.push(client);
    // The consent page names the client, where it is sent back to, and what it asks.
    expect(page).toContain('Metadata document host');
    expect(page).toContain('<strong>127.0.0.1:53682</strong>');
    expect(page).toMatch(/<code>read<\/code>.*<code>research<\/code>.*<code>write<\/code>/s);
    expect(page).toContain('name="api_key"');
    expect(provider.clientInformation()?.client_id).toBe(provider.clientMetadataUrl);

    const found = await client.callTool({ name: 'find_pages', arguments: {} });
    expect(found.isError).toBeFalsy();
    // The same token works on the REST tool routes, within its scopes.
    const access = given(provider.tokens(), 'the tokens').access_token;
    const rest = await fetch(`${t.url}/v1/tools/recall`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'running shoes' }),
    });
    expect(rest.status).toBe(200);
    // A token the container has not seen is one GetItem (its key was looked up by the refresh, in the
    // last 5 s; see the last test for all three), then no request for 5 s.
    const renewed = await token({
      grant_type: 'refresh_token',
      refresh_token: given(given(provider.tokens(), 'the tokens').refresh_token, 'the refresh_token'),
      client_id: given(provider.clientMetadataUrl, 'the clientMetadataUrl'),
    });
    const listTools = () =>
      fetch(`${t.url}/v1/tools`, { headers: { authorization: `Bearer ${renewed.body.access_token}` } });
    const first = await requestPathCount(t, listTools);
    expect([first.result.status, first.requests]).toEqual([200, COUNTED_REQUESTS.tokenKeyCached]);
    expect((await requestPathCount(t, listTools)).requests).toBe(0);
    // A key keeps working on the OAuth endpoint as on /mcp, unchallenged.
    const byKey = await fetch(mcp, {
      method: 'POST',
      headers: {
        'x-api-key': t.key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('www-authenticate')).toBeNull();
  });

  it('rotates refresh tokens, revokes the family on a reused one, and revokes a token asked to', async () => {
    const provider = new TestOAuthProvider(CALLBACK, `https://127.0.0.1:${documents.port}/rotation.json`);
    const { client } = await signIn(mcp, provider, t.key);
    clients.push(client);
    const clientId = given(provider.clientMetadataUrl, 'the clientMetadataUrl');
    const first = given(provider.tokens(), 'the tokens');
    const renewed = await token({
      grant_type: 'refresh_token',
      refresh_token: given(first.refresh_token, 'the refresh_token'),
      client_id: clientId,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await mcpCall(renewed.body.access_token, 'find_pages')).status).toBe(200);
    // The token it rotated to used too: the rotated-out one is past its reuse grace (oauth-hosts.test.ts).
    const rotated = await token({
      grant_type: 'refresh_token',
      refresh_token: renewed.body.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);

    // The rotated-out token used again: refused, and every token of its grant with it.
    const reused = await token({
      grant_type: 'refresh_token',
      refresh_token: given(first.refresh_token, 'the refresh_token'),
      client_id: clientId,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const familyRefresh = await token({
      grant_type: 'refresh_token',
      refresh_token: rotated.body.refresh_token,
      client_id: clientId,
    });
    expect(familyRefresh.body.error).toBe('invalid_grant');

    // RFC 7009: a token revoked is refused (this one had not been used, so no container kept it).
    const other = new TestOAuthProvider(CALLBACK, `https://127.0.0.1:${documents.port}/revocation.json`);
    clients.push((await signIn(mcp, other, t.key)).client);
    const again = await token({
      grant_type: 'refresh_token',
      refresh_token: given(given(other.tokens(), 'the tokens').refresh_token, 'the refresh_token'),
      client_id: given(other.clientMetadataUrl, 'the clientMetadataUrl'),
    });
    const revoked = await fetch(
      `${t.url}/oauth/revoke`,
      form({ token: again.body.access_token, client_id: given(other.clientMetadataUrl, 'the clientMetadataUrl') }),
    );
    expect(revoked.status).toBe(200);
    expect((await mcpCall(again.body.access_token, 'find_pages')).status).toBe(401);
  });

  it('registers a client by DCR; a token for another resource is refused, and a site sees only its own data', async () => {
    // A REST client's sign-in: registered by DCR (no metadata document), for the REST API's resource.
    const siteB = await t.newSite('OAuth site B');
    const provider = new TestOAuthProvider(CALLBACK, undefined, `${t.url}/v1`);
    await expect(signIn(mcp, provider, t.key)).rejects.toThrow();
    const restToken = given(provider.tokens(), 'the tokens').access_token;
    expect(provider.clientInformation()?.client_id).toEqual(expect.any(String));
    expect(provider.clientInformation()?.client_id).not.toMatch(/^https:/);
    // For the REST API, not for the MCP endpoint.
    const refused = await mcpCall(restToken, 'find_pages');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    // Site A's token on site B's data: B's job is not found for A.
    const job = await fetch(`${t.url}/v1/tools/research`, {
      method: 'POST',
      headers: { 'x-api-key': siteB.key, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'web', seed: 'site b only', wait_ms: 0 }),
    }).then((r) => r.json() as Promise<{ job_id: string }>);
    const mine = await fetch(`${t.url}/v1/jobs/${job.job_id}`, { headers: { authorization: `Bearer ${restToken}` } });
    expect(mine.status).toBe(404);
    await t.stack.drain();

    // A confidential client's secret, shown once, is stored as its hash and checked as one.
    const confidential = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://host.example/cb'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    }).then((r) => r.json() as Promise<{ client_id: string; client_secret: string }>);
    const stored = await storedItem('Client', confidential.client_id);
    expect(stored).not.toContain(confidential.client_secret);
    expect(stored).toMatch(/client_secret\\":\\"sha256:[0-9a-f]{64}/);
    const revokeWith = (secret: string) =>
      fetch(
        `${t.url}/oauth/revoke`,
        form({ token: 'nothing', client_id: confidential.client_id, client_secret: secret }),
      );
    expect((await revokeWith(confidential.client_secret)).status).toBe(200);
    expect((await revokeWith(`${confidential.client_secret}x`)).status).toBe(401);
    // Tokens too: only the hash names the item, and the payload has no token.
    const tokenItem = await storedItem('AccessToken', restToken);
    expect(tokenItem).not.toContain(restToken);
  });

  it('refuses a request without PKCE, with a plain challenge, with a redirect URI one character off, or for an unknown resource', async () => {
    const clientId = `https://127.0.0.1:${documents.port}/refusals.json`;
    const challenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
    const authorize = (params: Record<string, string>) =>
      fetch(
        `${t.url}/oauth/authorize?${new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          redirect_uri: CALLBACK,
          scope: 'read',
          state: 's',
          ...params,
        }).toString()}`,
        { redirect: 'manual' },
      );
    const errorOf = (response: Response) =>
      new URL(given(response.headers.get('location'), 'the get')).searchParams.get('error');
    expect(errorOf(await authorize({}))).toBe('invalid_request');
    expect(errorOf(await authorize({ code_challenge: challenge, code_challenge_method: 'plain' }))).toBe(
      'invalid_request',
    );
    expect(
      errorOf(
        await authorize({
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: 'https://other.example/mcp',
        }),
      ),
    ).toBe('invalid_target');
    // A redirect URI that is not the registered one is never redirected to.
    const offByOne = await authorize({
      code_challenge: challenge,
      code_challenge_method: 'S256',
      redirect_uri: CALLBACK.replace('callback', 'callbacc'),
    });
    expect(offByOne.status).toBe(400);
    expect(offByOne.headers.get('location')).toBeNull();
    // A code is good once: used again, it is refused, and the tokens it gave are revoked.
    const once = await rawSignIn(t.key, 'read');
    expect((await once.replay()).body.error).toBe('invalid_grant');
    expect((await mcpCall(once.access_token, 'find_pages')).status).toBe(401);
    // Two exchanges of one code at once: one gets tokens, the other is refused.
    const { exchange } = await rawCode(t.key, 'read');
    const both = await Promise.all([exchange(), exchange()]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    // DCR takes only https, or http to this machine.
    const registered = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(400);
    expect(await registered.json()).toMatchObject({ error: 'invalid_redirect_uri' });
  });

  it('refuses a consent post without its CSRF token, or with a key that is no site’s, and ends when the user denies', async () => {
    const provider = new TestOAuthProvider(CALLBACK, `https://127.0.0.1:${documents.port}/consent.json`);
    const { Client: SdkClient, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const host = new SdkClient({ name: 'h', version: '1' });
    await expect(
      host.connect(new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider })),
    ).rejects.toThrow();
    const browser = new Browser();
    const consent = await browser.follow(given(provider.authorizationUrl, 'the authorizationUrl'), t.url);
    const csrf = csrfOf(await given(consent.response, 'the response').text());
    expect((await submitConsent(browser, consent.url, { api_key: t.key, decision: 'approve' })).response.status).toBe(
      403,
    );
    const forged = await submitConsent(browser, consent.url, {
      csrf: 'x'.repeat(43),
      api_key: t.key,
      decision: 'approve',
    });
    expect(forged.response.status).toBe(403);
    const wrongKey = await submitConsent(browser, consent.url, { csrf, api_key: 'cmk_not-a-key', decision: 'approve' });
    expect(wrongKey.response.status).toBe(401);
    const denied = await submitConsent(browser, consent.url, { csrf, decision: 'deny' });
    expect(denied.callback?.searchParams.get('error')).toBe('access_denied');
  });

  it('answers a call the token has no scope for with a step-up challenge, and ends tokens with their key', async () => {
    const site = await t.newSite('OAuth scopes');
    const read = await rawSignIn(site.key, 'read');
    expect(read.scope).toBe('read');
    expect((await mcpCall(read.access_token, 'find_pages')).status).toBe(200);
    const paid = await mcpCall(read.access_token, 'serp_keyword_refresh', { keyword: 'trail shoes' });
    expect(paid.status).toBe(403);
    expect(await paid.json()).toMatchObject({ code: 'insufficient_scope', scope: 'research' });
    expect(paid.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="read research", resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp/oauth"`,
    );
    // A revoked key ends its tokens once the key's lookup is no longer kept (5 s), as it ends the key.
    const unused = await rawSignIn(site.key, 'read');
    expect(await t.store.sites.revokeKey(site.key)).toBe(site.siteId);
    // Its refresh is refused at once: the authorization server reads the key afresh before it issues a token.
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: unused.refresh_token, client_id: RAW_CLIENT })).body
        .error,
    ).toBe('invalid_grant');
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    // The token's GetItem, then its key's and its site's at once: 3 requests in 2 round trips.
    const checked = await requestPathCount(t, () => mcpCall(unused.access_token, 'find_pages'));
    expect([checked.result.status, checked.requests]).toEqual([401, COUNTED_REQUESTS.tokenFirstSeen]);
  });

  it('offers no DPoP: its metadata names none, a proof gets a Bearer token, and a DPoP-bound token is no bearer one', async () => {
    const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
    // A host that sends a proof anyway is given a Bearer token (RFC 9449 §5), which works as one.
    const { exchange } = await rawCode(t.key, 'read');
    const proof = dpopProof('POST', `${t.url}/oauth/token`);
    const issued = await exchange({ dpop: proof });
    expect(issued.body.token_type).toBe('Bearer');
    expect((await mcpCall(issued.body.access_token, 'find_pages')).status).toBe(200);
    // A token bound to a key (cnf.jkt, as one issued while DPoP was offered) is refused as a bearer token.
    const bound = randomBytes(32).toString('base64url');
    const site = await t.store.sites.lookupKey(t.key);
    await new OAuthStore(t.db, t.stack.tableName).upsert(
      'AccessToken',
      bound,
      {
        accountId: accountIdOf(given(site, 'the site').site_id, createHash('sha256').update(t.key).digest('hex')),
        clientId: RAW_CLIENT,
        aud: mcp,
        scope: 'read',
        exp: Math.floor(Date.now() / 1000) + 600,
        jkt: 'thumbprint-of-a-dpop-key',
      },
      600,
    );
    const refused = await mcpCall(bound, 'find_pages');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('is no OpenID provider: the metadata names no OpenID Connect claims, and openid gets no ID token', async () => {
    const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.scopes_supported).toEqual(['read', 'research', 'write', 'publish']);
    for (const field of [
      'claims_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      'claims_parameter_supported',
      'claim_types_supported',
    ])
      expect({ field, value: metadata[field] }).toEqual({ field, value: undefined });
    const signedIn = await rawSignIn(t.key, 'openid read');
    expect(signedIn).not.toHaveProperty('id_token');
    expect(signedIn.scope).toBe('read');
    // openid alone names nothing this server grants: refused, never read as naming none (which asks all).
    const openidOnly = await fetch(
      `${t.url}/oauth/authorize?${new URLSearchParams({
        client_id: 'any',
        response_type: 'code',
        redirect_uri: 'https://callback.example/cb',
        scope: 'openid',
        code_challenge: createHash('sha256').update(randomBytes(8)).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(openidOnly.status).toBe(400);
    expect(await openidOnly.text()).toContain('(invalid_scope)');
  });

  it('names a registered client as unverified beside where it returns, a metadata document by its host, in a page no one may frame', async () => {
    const registered = (await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'ChatGPT',
        redirect_uris: ['https://callback.example/cb'],
        token_endpoint_auth_method: 'none',
      }),
    }).then((r) => r.json())) as { client_id: string };
    const pageOf = async (clientId: string, redirectUri: string) => {
      const consent = await new Browser().follow(
        `${t.url}/oauth/authorize?${new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          redirect_uri: redirectUri,
          scope: 'read',
          state: 's',
          code_challenge: createHash('sha256').update(randomBytes(8)).digest('base64url'),
          code_challenge_method: 'S256',
        }).toString()}`,
        t.url,
      );
      return {
        headers: given(consent.response, 'the response').headers,
        html: await given(consent.response, 'the response').text(),
      };
    };
    const dcr = await pageOf(registered.client_id, 'https://callback.example/cb');
    expect(dcr.html).toContain(
      '<h1>Allow an application that returns to <strong>callback.example</strong> to act for your site?</h1>',
    );
    expect(dcr.html).toContain(
      'calls itself “ChatGPT” <span class="unverified">(a name it chose itself, not verified)',
    );
    expect(dcr.html).not.toMatch(/<h1>[^<]*ChatGPT/);
    expect(dcr.headers.get('x-frame-options')).toBe('DENY');
    expect(dcr.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const nameless = (await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://callback.example/cb'], token_endpoint_auth_method: 'none' }),
    }).then((r) => r.json())) as { client_id: string };
    expect((await pageOf(nameless.client_id, 'https://callback.example/cb')).html).toContain(
      `registered as <code>${nameless.client_id}</code>, which gives no name,`,
    );
    const cimd = await pageOf(`https://127.0.0.1:${documents.port}/named.json`, CALLBACK);
    expect(cimd.html).toContain(`<h1>Allow <strong>127.0.0.1:${documents.port}</strong> to act for your site?</h1>`);
    expect(cimd.html).toContain('calls itself “Metadata document host”');
  });

  it('shows its own error page under its policy, and fetches a client metadata document that fails once', async () => {
    const oversized = `https://127.0.0.1:${documents.port}/oversized.json`;
    const refused = await fetch(
      `${t.url}/oauth/authorize?${new URLSearchParams({
        client_id: oversized,
        response_type: 'code',
        redirect_uri: CALLBACK,
        state: 's',
        code_challenge: createHash('sha256').update(randomBytes(8)).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(refused.status).toBe(400);
    expect(fetched.get('/oversized.json')).toBe(1);
    const html = await refused.text();
    expect(html).toContain('<h1>This sign-in cannot go on</h1>');
    expect(html).not.toMatch(/oops|@import/);
    expect(refused.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers browsers’ preflights on the OAuth paths, and 405 with Allow for a method a path does not take', async () => {
    const page = 'http://localhost:6274';
    const preflight = (path: string, origin = page) =>
      fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': path.startsWith('/.well-known') ? 'GET' : 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp/oauth',
      '/oauth/register',
      '/oauth/token',
      MCP_OAUTH_PATH,
    ]) {
      const answered = await preflight(path);
      expect({ path, status: answered.status }).toEqual({ path, status: 204 });
      expect(answered.headers.get('access-control-allow-origin')).toMatch(/^(\*|http:\/\/localhost:6274)$/);
      expect(answered.headers.get('access-control-allow-headers')).toBe(
        'authorization, content-type, mcp-protocol-version',
      );
    }
    // The metadata is any page's to read; the endpoints only an allowed origin's.
    expect((await preflight('/.well-known/oauth-authorization-server', 'https://evil.example')).status).toBe(204);
    expect((await preflight('/oauth/register', 'https://evil.example')).status).toBe(403);
    const registered = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { origin: page, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [`${page}/cb`], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('access-control-allow-origin')).toBe(page);
    // The token endpoint takes an allowed page, whichever origin the client returns to.
    const loopback = 'http://127.0.0.1:6274';
    const exchanged = await fetch(`${t.url}/oauth/token`, {
      ...form({
        grant_type: 'authorization_code',
        code: 'unknown',
        client_id: ((await registered.json()) as { client_id: string }).client_id,
        redirect_uri: `${page}/cb`,
        code_verifier: 'v'.repeat(43),
      }),
      headers: { ...form({}).headers, origin: loopback },
    });
    expect(exchanged.headers.get('access-control-allow-origin')).toBe(loopback);
    expect(((await exchanged.json()) as { error: string }).error).toBe('invalid_grant');
    // The challenge is readable by the page, which discovers the authorization server from it.
    const challenged = await fetch(mcp, { method: 'POST', headers: { origin: page }, body: '{}' });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('access-control-allow-origin')).toBe(page);
    expect(challenged.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate');

    const wrong = async (method: string, path: string) => {
      const answered = await fetch(`${t.url}${path}`, { method });
      return { status: answered.status, allow: answered.headers.get('allow'), body: await answered.json() };
    };
    expect(await wrong('GET', '/oauth/token')).toMatchObject({
      status: 405,
      allow: 'POST, OPTIONS',
      body: { code: 'method_not_allowed' },
    });
    expect(await wrong('DELETE', '/.well-known/oauth-authorization-server')).toMatchObject({
      status: 405,
      allow: 'GET, HEAD, OPTIONS',
    });
    expect(await wrong('PUT', '/oauth/consent/abc')).toMatchObject({ status: 405, allow: 'GET, HEAD, POST' });
    expect(await wrong('PUT', MCP_OAUTH_PATH)).toMatchObject({ status: 405, allow: 'POST, OPTIONS' });
    expect(await wrong('GET', MCP_OAUTH_PATH)).toMatchObject({ status: 405, allow: 'POST, OPTIONS' });
    expect((await wrong('GET', '/oauth/nothing')).status).toBe(404);
  });

  it('ignores a forwarded scheme that is neither http nor https', async () => {
    const proto = { 'x-forwarded-proto': 'javascript' };
    const answers = await Promise.all([
      fetch(`${t.url}/oauth/jwks`, { headers: proto }),
      fetch(`${t.url}/.well-known/oauth-authorization-server`, { headers: proto }),
      fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { ...proto, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&refresh_token=x&client_id=y',
      }),
      fetch(`${t.url}/oauth/register`, {
        method: 'POST',
        headers: { ...proto, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 201]);
    const metadata = (await answers[1].json()) as { issuer: string };
    expect(metadata.issuer).toMatch(/^https?:\/\//);
  });

  it('builds its URLs from its own base, whatever host a client forwards: never a 500, never another host', async () => {
    const cases: Record<string, string>[] = [
      { 'x-forwarded-host': 'a b' },
      { 'x-forwarded-host': 'x:99999' },
      { 'x-forwarded-host': 'evil.example' },
      { forwarded: 'host=evil.example;proto=https' },
    ];
    for (const forwarded of cases) {
      const answer = await fetch(`${t.url}/.well-known/oauth-authorization-server`, { headers: forwarded });
      expect({ forwarded, status: answer.status }).toEqual({ forwarded, status: 200 });
      const metadata = (await answer.json()) as Record<string, string>;
      expect(new URL(given(metadata.authorization_endpoint, 'the authorization_endpoint')).origin).toBe(
        new URL(given(metadata.issuer, 'the issuer')).origin,
      );
      expect(JSON.stringify(metadata)).not.toContain('evil.example');
    }
  });

  it('takes the site key as a bearer on the OAuth endpoint, as the key endpoint does', async () => {
    const byBearerKey = await fetch(mcp, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(byBearerKey.status).toBe(200);
    expect(byBearerKey.headers.get('www-authenticate')).toBeNull();
    const wrongKey = await fetch(mcp, { method: 'POST', headers: { authorization: 'Bearer cmk_nope' }, body: '{}' });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers.get('www-authenticate')).toBe('Bearer');
  });

  // Last: it moves the clock, and its address's count would refuse the other tests' keys.
  it('refuses keys from an address past its wrong ones, until the window ends', async () => {
    const { limit, windowSeconds } = CONSENT_KEY_ATTEMPTS;
    const windowMs = windowSeconds * 1000;
    fakeClock(Math.ceil(Date.now() / windowMs) * windowMs + 1_000);
    try {
      // A good key is not counted against the address.
      const site = await t.newSite('OAuth limits');
      const good = await (await openConsent('read')).post(site.key);
      expect(good.callback?.searchParams.get('code')).toEqual(expect.any(String));
      const again = await openConsent('read');
      const statuses: number[] = [];
      for (let i = 0; i < limit; i++) statuses.push((await again.post(`cmk_wrong-${i}`)).response.status);
      expect(statuses).toEqual(Array(limit).fill(401));
      const refused = (await again.post(t.key)).response;
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBe(windowSeconds - 1);
      expect(await refused.text()).toContain('Too many wrong keys');
      jest.setSystemTime(Date.now() + windowMs);
      expect((await rawSignIn(t.key, 'read')).scope).toBe('read');
    } finally {
      jest.useRealTimers();
    }
  });
});

/** The stored item of the authorization server's `model` `id`, as its JSON text (found by the id's hash). */
async function storedItem(model: string, id: string): Promise<string> {
  const hash = createHash('sha256').update(id).digest('hex');
  const out = await t.db.send(
    new GetCommand({ TableName: t.stack.tableName, Key: { pk: `OAUTH#${model}#${hash}`, sk: 'OAUTH' } }),
  );
  expect(out.Item).toBeDefined();
  return JSON.stringify(out.Item);
}

const RAW_CLIENT_PATH = '/raw.json';
let RAW_CLIENT = '';

/** A sign-in by hand, as a host would without the SDK: PKCE, the consent form, the code exchanged. */
async function rawSignIn(apiKey: string, scope: string) {
  const { exchange } = await rawCode(apiKey, scope);
  const issued = await exchange();
  expect(issued.status).toBe(200);
  const tokens = issued.body as { access_token: string; refresh_token: string; scope: string };
  /** The same code exchanged again. */
  return { ...tokens, replay: exchange };
}

/** A sign-in by hand up to its consent page (PKCE, the authorization request), and how to post its form. */
async function openConsent(scope: string) {
  RAW_CLIENT = `https://127.0.0.1:${documents.port}${RAW_CLIENT_PATH}`;
  const verifier = randomBytes(32).toString('base64url');
  const browser = new Browser();
  const consent = await browser.follow(
    `${t.url}/oauth/authorize?${new URLSearchParams({
      client_id: RAW_CLIENT,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope,
      resource: mcp,
      state: 'raw',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString()}`,
    t.url,
  );
  const csrf = csrfOf(await given(consent.response, 'the response').text());
  const post = (apiKey: string) => submitConsent(browser, consent.url, { csrf, api_key: apiKey, decision: 'approve' });
  return { verifier, post };
}

/** The code of a sign-in by hand (PKCE and the consent form), and how to exchange it (with `headers`, a DPoP proof). */
async function rawCode(apiKey: string, scope: string) {
  const { verifier, post } = await openConsent(scope);
  const { callback } = await post(apiKey);
  const code = given(given(callback, 'the callback').searchParams.get('code'), 'the get');
  const exchange = (headers: Record<string, string> = {}) =>
    token(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: CALLBACK,
        client_id: RAW_CLIENT,
        code_verifier: verifier,
        resource: mcp,
      },
      headers,
    );
  return { exchange };
}

/** A DPoP proof (RFC 9449 §4.2) of a request, signed by a new P-256 key. */
function dpopProof(htm: string, htu: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) })}.${part({
    jti: randomUUID(),
    htm,
    htu,
    iat: Math.floor(Date.now() / 1000),
  })}`;
  const signature = sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signed}.${signature.toString('base64url')}`;
}
