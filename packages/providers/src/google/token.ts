import * as z from 'zod/mini';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { ProviderError } from '../errors';
import type { Meter } from '../meter';
import type { GoogleRequests } from './request';
import { TokenAnswer, TokenRefusal, type ServiceAccountKey } from './responses.decoder';

/*
 * A service account's access token (Google's OAuth 2.0 for server to server applications): a JWT
 * signed RS256 with the account's private key, exchanged at the token endpoint for an access token
 * (the JWT bearer grant, RFC 7523), kept in memory until shortly before it expires.
 */

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** An assertion's lifetime: Google takes one hour at most. */
const ASSERTION_SECONDS = 3600;
/** A token is not used in its last minute: a page asked then could reach Google after it expired. */
const EARLY_SECONDS = 60;

interface Token {
  accessToken: string;
  /** When it stops being used, in ms since the epoch. */
  usableUntil: number;
}

/**
 * Tokens by service account, kept for the life of the process: a warm function imports many days
 * with one token, whichever provider instance asks.
 */
const tokens = new Map<string, Token>();

/** The access tokens of one service account, for one scope. */
export class ServiceAccountTokens {
  private signingKey: Promise<CryptoKey> | undefined;

  constructor(
    private readonly key: ServiceAccountKey,
    private readonly scope: string,
    private readonly requests: GoogleRequests,
    private readonly provider: string,
    private readonly tokenUrl: string,
    private readonly now: () => number,
  ) {}

  /** A usable access token: the kept one, or a new one from the token endpoint. */
  async token(meter: Meter): Promise<string> {
    const kept = tokens.get(this.key.client_email);
    if (kept && kept.usableUntil > this.now()) return kept.accessToken;
    const asked = this.now();
    const answer = await this.requests.post(
      this.tokenUrl,
      {
        type: 'application/x-www-form-urlencoded',
        data: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.assertion(asked) }).toString(),
      },
      meter,
    );
    if (answer.status !== 200) throw this.refused(answer.status, answer.body);
    const decoded = z.safeParse(TokenAnswer, answer.body);
    if (!decoded.success) throw new ProviderError(this.provider, `${this.tokenUrl}: unreadable token answer`, true);
    const token = {
      accessToken: decoded.data.access_token,
      // From when it was asked: the token's lifetime started no earlier than that.
      usableUntil: asked + (decoded.data.expires_in - EARLY_SECONDS) * 1000,
    };
    tokens.set(this.key.client_email, token);
    return token.accessToken;
  }

  /** Forgets the account's token (Google refused it): the next call asks for another. */
  forget(): void {
    tokens.delete(this.key.client_email);
  }

  private async assertion(nowMs: number): Promise<string> {
    const issuedAt = Math.floor(nowMs / 1000);
    return new SignJWT({ scope: this.scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(this.key.client_email)
      .setAudience(this.tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_SECONDS)
      .sign(await this.privateKey());
  }

  private privateKey(): Promise<CryptoKey> {
    this.signingKey ??= importPKCS8(this.key.private_key, 'RS256').catch(() => {
      this.signingKey = undefined;
      throw new ProviderError(
        this.provider,
        `the key of the service account ${this.key.client_email} has no usable private_key (a PKCS #8 PEM RSA key)`,
        false,
      );
    });
    return this.signingKey;
  }

  /** Why the token endpoint gave no token: a refused key or account is for the deployment to mend, a 429 or 5xx passes. */
  private refused(status: number, body: unknown): ProviderError {
    const refusal = z.safeParse(TokenRefusal, body);
    const detail = refusal.success
      ? [refusal.data.error, refusal.data.error_description].filter(Boolean).join(': ')
      : `HTTP ${status}`;
    if (status === 429 || status >= 500)
      return new ProviderError(this.provider, `${this.tokenUrl}: ${detail}`, true, status);
    return new ProviderError(
      this.provider,
      `Google refused the key of the service account ${this.key.client_email} (${detail}): the deployment's SEARCH_CONSOLE_SECRET must hold a valid key of an enabled account`,
      false,
      status,
    );
  }
}
