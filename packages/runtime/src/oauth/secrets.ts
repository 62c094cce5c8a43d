import { createHmac, createPrivateKey, timingSafeEqual, type JsonWebKey } from 'node:crypto';

/*
 * What the authorization server makes of the deployment's one OAuth secret (OAUTH_SECRET): the keys
 * its cookies are signed with, the token each consent form carries, and its signing key. Each is an
 * HMAC of the secret with its own label, so no two uses share a key, and every container of the
 * deployment makes the same ones with nothing stored.
 */

const derive = (secret: string, label: string) => createHmac('sha256', secret).update(label).digest();

/** The keys oidc-provider signs its cookies with. */
export const cookieKeys = (secret: string): string[] => [derive(secret, 'oauth cookies').toString('base64url')];

/** The anti-forgery token of the consent form of interaction `uid`: only a page this server made has it. */
export const consentToken = (secret: string, uid: string): string =>
  derive(secret, `oauth consent ${uid}`).toString('base64url');

/** Whether a form carried interaction `uid`'s consent token (constant-time). */
export function consentTokenMatches(secret: string, uid: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(consentToken(secret, uid));
  const actual = Buffer.from(sent);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A PKCS#8 Ed25519 private key is this prefix and the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The authorization server's signing key, an Ed25519 key whose seed is made from the secret. It signs
 * nothing a client relies on here (no OpenID Connect ID tokens are issued; access tokens are opaque),
 * but oidc-provider needs one, and a key of its own for production.
 */
export function signingKey(secret: string): JsonWebKey {
  const seed = derive(secret, 'oauth signing key');
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return {
    ...key.export({ format: 'jwk' }),
    use: 'sig',
    alg: 'EdDSA',
    kid: derive(secret, 'oauth kid').toString('base64url').slice(0, 16),
  };
}
