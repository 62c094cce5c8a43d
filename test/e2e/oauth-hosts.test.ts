import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Client, StoredOAuthClientInformation } from '@modelcontextprotocol/client';
import { MCP_OAUTH_PATH, REFRESH_TOKEN_REUSE_GRACE_SECONDS } from '@cm/contract';
import { OAuthStore } from '@cm/store';
import { CLIENT_DOCUMENTS_ON_LOOPBACK, signIn, TestOAuthProvider } from '../helpers/oauth';
import { startTestStack, type TestStack } from '../helpers/local';
import { startTlsSite, type TlsSite } from '../helpers/tls-site';
import { given } from '../helpers/client';

/*
 * Each host the docs name (docs/api/oauth.md#what-each-host-does), signing in as it does: its own
 * registration (its published client metadata document, or the Dynamic Client Registration body it
 * sends) and the redirect URI it then names, driven end to end by the MCP SDK's client on the local
 * stack. The documents are served over https on loopback, standing for the hosts' own.
 */

let t: TestStack;
let documents: TlsSite;
let mcp: string;
const clients: Client[] = [];

/** The client metadata documents the hosts publish, by path; each names its own URL as client_id. */
const DOCUMENTS: Record<string, Record<string, unknown>> = {
  // https://claude.ai/oauth/claude-code-client-metadata: no port, no application_type.
  '/oauth/claude-code-client-metadata': {
    client_name: 'Claude Code',
    client_uri: 'https://claude.ai',
    redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
  // https://claude.ai/oauth/mcp-oauth-client-metadata (Claude.ai and Claude Desktop, "Anthropic's hosted client metadata").
  '/oauth/mcp-oauth-client-metadata': {
    client_name: 'Claude',
    client_uri: 'https://claude.ai',
    redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
};

beforeAll(async () => {
  documents = await startTlsSite('127.0.0.1', (req, res) => {
    const document = DOCUMENTS[req.url ?? ''];
    res.writeHead(document ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ client_id: `https://127.0.0.1:${documents.port}${req.url}`, ...document }));
  });
  t = await startTestStack({ env: CLIENT_DOCUMENTS_ON_LOOPBACK });
  mcp = `${t.url}${MCP_OAUTH_PATH}`;
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
  await documents.close();
});

/**
 * A host listening at `redirectUrl`, registered by DCR with exactly the body it sends (`registers`:
 * not the SDK's, which would add an `application_type` of its own), or by its document's URL.
 */
async function host(redirectUrl: string, registers: Record<string, unknown> | string) {
  if (typeof registers === 'string') return new TestOAuthProvider(redirectUrl, registers);
  const provider = new TestOAuthProvider(redirectUrl);
  const registered = await fetch(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...registers,
    }),
  });
  expect(registered.status).toBe(201);
  provider.saveClientInformation((await registered.json()) as StoredOAuthClientInformation);
  return provider;
}

/** Signs `host` in and calls a tool with its token: the whole sign-in worked. */
async function signsIn(host: TestOAuthProvider) {
  const { client, page } = await signIn(mcp, host, t.key);
  clients.push(client);
  expect((await client.callTool({ name: 'find_pages', arguments: {} })).isError).toBeFalsy();
  return { page, clientId: host.clientInformation()?.client_id };
}

describe('each host signs in as it does', () => {
  it('Claude Code: its published document names loopback without a port, and it listens on whichever port is free', async () => {
    const url = `https://127.0.0.1:${documents.port}/oauth/claude-code-client-metadata`;
    const signed = await signsIn(await host('http://localhost:52163/callback', url));
    expect(signed.clientId).toBe(url);
    expect(signed.page).toContain('<strong>localhost:52163</strong>');
    // The other loopback host of its document, on another port, as well.
    expect((await signsIn(await host('http://127.0.0.1:41877/callback', url))).clientId).toBe(url);
  });

  it('VS Code: registers one loopback port by DCR, and comes back on another when it is taken', async () => {
    const vscode = {
      client_name: 'Visual Studio Code',
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://127.0.0.1/',
        'http://127.0.0.1:33418/',
      ],
      token_endpoint_auth_method: 'none',
    };
    const signed = await signsIn(await host('http://127.0.0.1:59656/', vscode));
    expect(signed.clientId).not.toMatch(/^https:/);
  });

  it('Cursor: registers its private-use scheme by DCR, and is sent back to it', async () => {
    const cursor = {
      client_name: 'Cursor',
      redirect_uris: [
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'https://www.cursor.com/agents/mcp/oauth/callback',
        'http://localhost:8787/callback',
      ],
      token_endpoint_auth_method: 'none',
    };
    const signed = await signsIn(await host('cursor://anysphere.cursor-mcp/oauth/callback', cursor));
    expect(signed.page).toContain('<strong>the app that opens cursor: links</strong>');
    // Its hosted callback, for the agents it runs in the cloud.
    await signsIn(await host('https://www.cursor.com/agents/mcp/oauth/callback', cursor));
  });

  it('Claude.ai and Claude Desktop: a confidential client by DCR, or the hosted metadata document', async () => {
    // The body Claude's backend sends (for claude.ai and Claude Desktop's connectors alike).
    const claude = {
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_post',
    };
    const byDcr = await host('https://claude.ai/api/mcp/auth_callback', claude);
    await signsIn(byDcr);
    expect(byDcr.clientInformation()?.client_secret).toEqual(expect.any(String));
    // Its document names a grant type this server does not offer: the rest of it is taken.
    const url = `https://127.0.0.1:${documents.port}/oauth/mcp-oauth-client-metadata`;
    expect((await signsIn(await host('https://claude.ai/api/mcp/auth_callback', url))).clientId).toBe(url);
  });

  it('ChatGPT: a confidential client by DCR, sent back to its connector redirect', async () => {
    const chatgpt = await host('https://chatgpt.com/connector_platform_oauth_redirect', {
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    const signed = await signsIn(chatgpt);
    expect(signed.page).toContain('<strong>chatgpt.com</strong>');
  });

  it('refuses a redirect scheme a browser runs, saying why; a loopback redirect on another path is still refused', async () => {
    const registered = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['javascript:alert(1)//'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(400);
    expect(await registered.json()).toEqual({
      error: 'invalid_redirect_uri',
      error_description: expect.stringContaining('javascript scheme, which a browser runs'),
    });
    const url = `https://127.0.0.1:${documents.port}/oauth/claude-code-client-metadata`;
    const authorize = await fetch(
      `${t.url}/oauth/authorize?${new URLSearchParams({
        client_id: url,
        response_type: 'code',
        redirect_uri: 'http://localhost:52163/elsewhere',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(authorize.status).toBe(400);
    expect(authorize.headers.get('location')).toBeNull();
  });
});

const refresh = (refreshToken: string, clientId: string) =>
  fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }).toString(),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));

describe('a refresh whose answer was lost', () => {
  it('answers a retry with the token used, anew, and keeps the sign-in; a reuse once the next was used still revokes the family', async () => {
    const url = `https://127.0.0.1:${documents.port}/oauth/claude-code-client-metadata`;
    const provider = await host('http://localhost:50001/callback', url);
    await signsIn(provider);
    const first = given(given(provider.tokens(), 'the tokens').refresh_token, 'the refresh_token');
    // The answer is lost on its way to the host: it never sees `lost`.
    const lost = await refresh(first, url);
    expect(lost.status).toBe(200);
    const retried = await refresh(first, url);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).not.toBe(lost.body.refresh_token);
    // The sign-in lives on the retry's answer (the host never saw `lost`: see the thief's case below).
    const next = await refresh(given(retried.body.refresh_token, 'the refresh_token'), url);
    expect(next.status).toBe(200);
    // The first token again, now that the token its retry answered was used: a reuse, and the family ends.
    expect((await refresh(first, url)).body.error).toBe('invalid_grant');
    expect((await refresh(given(retried.body.refresh_token, 'the refresh_token'), url)).body.error).toBe(
      'invalid_grant',
    );
    expect((await refresh(given(next.body.refresh_token, 'the refresh_token'), url)).body.error).toBe('invalid_grant');
  });

  it('ends the family when the owner uses a token whose predecessor someone else replayed within the grace', async () => {
    const url = `https://127.0.0.1:${documents.port}/oauth/claude-code-client-metadata`;
    const provider = await host('http://localhost:50002/callback', url);
    await signsIn(provider);
    const first = given(given(provider.tokens(), 'the tokens').refresh_token, 'the refresh_token');
    const owners = await refresh(first, url);
    expect(owners.status).toBe(200);
    // A thief replays the first token within the grace: answered, as a retry would be...
    const thiefs = await refresh(first, url);
    expect(thiefs.status).toBe(200);
    // ...but the owner's token it took the place of is marked used, not gone: its use is a reuse, and ends it all.
    expect((await refresh(given(owners.body.refresh_token, 'the refresh_token'), url)).body.error).toBe(
      'invalid_grant',
    );
    expect((await refresh(given(thiefs.body.refresh_token, 'the refresh_token'), url)).body.error).toBe(
      'invalid_grant',
    );
  });

  it('lasts the grace from the first use, and of two retries at once one takes it', async () => {
    const store = new OAuthStore(t.db, t.stack.tableName);
    const model = 'RefreshToken';
    const at = Date.now();
    const grace = REFRESH_TOKEN_REUSE_GRACE_SECONDS;
    for (const id of ['r0', 'r1']) await store.upsert(model, id, { grantId: 'g-grace' }, 3600, at);
    expect(await store.consume(model, 'r0', at)).toBe('consumed');
    // Not yet linked to its successor (the rotation records it as it saves the next token): no grace.
    expect(await store.reuseGraceSuccessor(model, 'r0', grace, at)).toBeNull();
    await store.recordSuccessor(model, 'r0', 'r1');
    const successor = await store.reuseGraceSuccessor(model, 'r0', grace, at + grace * 1000);
    expect(successor).toEqual(expect.any(String));
    expect(await store.reuseGraceSuccessor(model, 'r0', grace, at + (grace + 1) * 1000)).toBeNull();
    expect(
      await store.takeReuseGrace(model, 'r0', given(successor, 'the successor'), grace, at + (grace + 1) * 1000),
    ).toBe(false);
    const both = await Promise.all([
      store.takeReuseGrace(model, 'r0', given(successor, 'the successor'), grace, at),
      store.takeReuseGrace(model, 'r0', given(successor, 'the successor'), grace, at),
    ]);
    expect(both.sort()).toEqual([false, true]);
    // The successor is marked used, not deleted: a later use of it is a reuse.
    expect(await store.find(model, 'r1')).toMatchObject({ consumed: expect.any(Number) });
    // A successor used meanwhile: the second use is a reuse after all.
    for (const id of ['s0', 's1']) await store.upsert(model, id, { grantId: 'g-used' }, 3600, at);
    await store.consume(model, 's0', at);
    await store.recordSuccessor(model, 's0', 's1');
    const used = await store.reuseGraceSuccessor(model, 's0', grace, at);
    await store.consume(model, 's1', at);
    expect(await store.reuseGraceSuccessor(model, 's0', grace, at)).toBeNull();
    expect(await store.takeReuseGrace(model, 's0', given(used, 'the used'), grace, at)).toBe(false);
    // A link to a token revoked meanwhile is nothing.
    await store.recordSuccessor(model, 'gone', 's1');
    expect(await store.find(model, 'gone')).toBeUndefined();
  });
});

/** The stored item of registered client `id` (found by the id's hash). */
async function storedClient(id: string) {
  const hash = createHash('sha256').update(id).digest('hex');
  const out = await t.db.send(
    new GetCommand({ TableName: t.stack.tableName, Key: { pk: `OAUTH#Client#${hash}`, sk: 'OAUTH' } }),
  );
  return out.Item;
}

const register = (body: Record<string, unknown>) =>
  fetch(`${t.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));

describe('registration at scale', () => {
  it('answers an identical public registration with the same client, and each confidential one with its own', async () => {
    const body = {
      client_name: 'Visual Studio Code',
      redirect_uris: ['https://vscode.dev/redirect', 'http://127.0.0.1:33418/'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    };
    const [first, again, reordered] = await Promise.all([
      register(body),
      register(body),
      register(Object.fromEntries(Object.entries(body).reverse())),
    ]);
    expect([first.status, again.status, reordered.status]).toEqual([201, 201, 201]);
    expect(new Set([first.body.client_id, again.body.client_id, reordered.body.client_id]).size).toBe(1);
    expect(first.body.client_secret).toBeUndefined();
    // Another body is another client.
    const other = await register({ ...body, redirect_uris: ['http://127.0.0.1:33419/'] });
    expect(other.body.client_id).not.toBe(first.body.client_id);
    // A confidential client's secret is its own: each registration is a client of its own.
    const claude = {
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_post',
    };
    const [one, two] = await Promise.all([register(claude), register(claude)]);
    expect(one.body.client_id).not.toBe(two.body.client_id);
    expect(one.body.client_secret).not.toBe(two.body.client_secret);
  });

  it('forgets a registration no sign-in used after 30 days, and keeps one a sign-in used', async () => {
    const before = Math.floor(Date.now() / 1000);
    const unused = await register({
      client_name: 'Never signs in',
      redirect_uris: ['https://unused.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const item = await storedClient(given(unused.body.client_id, 'the client_id'));
    expect(item?.expires_at).toBeGreaterThanOrEqual(before + 30 * 86_400);
    expect(item?.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86_400);
    const used = await host('http://127.0.0.1:50002/', {
      client_name: 'Signs in',
      redirect_uris: ['http://127.0.0.1/'],
      token_endpoint_auth_method: 'none',
    });
    const clientId = given(used.clientInformation(), 'the clientInformation').client_id;
    expect((await storedClient(clientId))?.expires_at).toEqual(expect.any(Number));
    await signsIn(used);
    expect(await storedClient(clientId)).toMatchObject({ model: 'Client' });
    expect((await storedClient(clientId))?.expires_at).toBeUndefined();
    // Registered again with the same body, it stays kept.
    await host('http://127.0.0.1:50002/', {
      client_name: 'Signs in',
      redirect_uris: ['http://127.0.0.1/'],
      token_endpoint_auth_method: 'none',
    });
    expect((await storedClient(clientId))?.expires_at).toBeUndefined();
    // An identical registration renews an unused client's time, from its own registration on.
    const store = new OAuthStore(t.db, t.stack.tableName);
    const at = Date.now();
    await store.registerClient('pub_renewed', { client_name: 'Renewed' }, 100, at);
    await store.registerClient('pub_renewed', { client_name: 'Renewed' }, 100, at + 50_000);
    expect((await storedClient('pub_renewed'))?.expires_at).toBe(Math.floor(at / 1000) + 150);
    await store.keepClient('pub_renewed');
    await store.registerClient('pub_renewed', { client_name: 'Renewed' }, 100, at + 90_000);
    expect((await storedClient('pub_renewed'))?.expires_at).toBeUndefined();
    expect(await store.find('Client', 'pub_renewed')).toEqual({ client_name: 'Renewed', jti: 'pub_renewed' });
  });
});
