import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/*
 * An MCP host signing in to the OAuth endpoint as the SDK's own client does it (its OAuthClientProvider
 * drives discovery, registration, PKCE and the code exchange), and the browser it sends its user to:
 * a cookie jar that follows redirects by hand and fills in the consent form.
 */

/** The SDK's client provider, kept in memory: a host's storage and its browser hand-off. */
export class TestOAuthProvider implements OAuthClientProvider {
  private info?: StoredOAuthClientInformation;
  private stored?: StoredOAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  /** The authorization URL the SDK sent the user to. */
  authorizationUrl?: URL;
  lastState?: string;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    /** The resource to ask for, when not the one the server's metadata names (a REST client's). */
    private readonly resource?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier');
    return this.verifier;
  }
  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL | undefined> {
    return new URL(this.resource ?? resource ?? serverUrl);
  }
}

/** A browser: its cookies, and requests that do not follow redirects by themselves. */
export class Browser {
  private readonly jar = new Map<string, string>();

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  }

  /** GETs `url` and follows redirects until one leaves `origin` (a client's callback) or a page answers. */
  async follow(url: string | URL, origin: string): Promise<{ url: URL; response?: Response }> {
    let at = new URL(url);
    for (let hops = 0; hops < 10 && at.origin === origin; hops++) {
      const response = await this.request(at);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: at, response };
      at = new URL(location, at);
    }
    return { url: at };
  }
}

/** The consent form's hidden anti-forgery token. */
export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Posts the consent form, and follows on until the browser is sent to the client's callback. */
export async function submitConsent(browser: Browser, consentUrl: URL, fields: Record<string, string>) {
  const response = await browser.request(consentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const location = response.headers.get('location');
  if (!location) return { response };
  return { response, callback: (await browser.follow(new URL(location, consentUrl), consentUrl.origin)).url };
}

/**
 * A host connecting to `endpoint` with `provider`: the SDK finds it needs a token and sends the user to
 * sign in, the user approves with `apiKey` on the consent page, and the SDK exchanges the code. The
 * connected client, with the consent page as the user saw it.
 */
export async function signIn(endpoint: string, provider: TestOAuthProvider, apiKey: string) {
  const url = new URL(endpoint);
  const first = new Client({ name: 'oauth-host', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toThrow(
    UnauthorizedError,
  );
  const browser = new Browser();
  const consent = await browser.follow(provider.authorizationUrl!, url.origin);
  const page = await consent.response!.text();
  const { callback } = await submitConsent(browser, consent.url, {
    csrf: csrfOf(page),
    api_key: apiKey,
    decision: 'approve',
  });
  const params = callback!.searchParams;
  expect(params.get('state')).toBe(provider.lastState);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(params);
  const client = new Client({ name: 'oauth-host', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, page, consentUrl: consent.url };
}

/**
 * The local stack's settings for fetching client metadata documents from a TLS stand-in on loopback
 * (test/helpers/tls-site.ts), as a deployment fetches them from the web.
 */
export const CLIENT_DOCUMENTS_ON_LOOPBACK = {
  OAUTH_CLIENT_METADATA_LOOPBACK_DEV_ONLY: '1',
  OAUTH_CLIENT_METADATA_CA_FILE: join(__dirname, '../fixtures/tls/cert.pem'),
};
