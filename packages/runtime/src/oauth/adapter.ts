import { createHash, timingSafeEqual } from 'node:crypto';
import type { Adapter, AdapterPayload, errors as OidcErrors } from 'oidc-provider';
import { getOAuthStore } from '../services';

/*
 * oidc-provider's storage, on the single table (@cm/store's OAuthStore): every token, code, grant,
 * session, interaction and registered client by the hash of its id, and a registered client's secret
 * by its hash too. One instance per model.
 */

/** How a client secret is stored: its SHA-256, marked so, never the secret. */
const SECRET_HASH = 'sha256:';

const hashOf = (secret: string) => `${SECRET_HASH}${createHash('sha256').update(secret, 'utf8').digest('hex')}`;

/** Whether a client presented the secret whose hash is stored (constant-time). */
export function secretMatches(stored: string | undefined, presented: string): boolean {
  if (!stored?.startsWith(SECRET_HASH)) return false;
  const expected = Buffer.from(stored);
  const actual = Buffer.from(hashOf(presented));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The adapter class oidc-provider makes one instance of per model; `errors` are oidc-provider's, loaded with it. */
export const dynamoAdapter = (errors: typeof OidcErrors) =>
  class DynamoAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const secret = payload.client_secret;
      const kept =
        this.model === 'Client' && typeof secret === 'string' && !secret.startsWith(SECRET_HASH)
          ? { ...payload, client_secret: hashOf(secret) }
          : payload;
      await getOAuthStore().upsert(this.model, id, kept, expiresIn);
    }

    /** What oidc-provider stored, given back (the store only takes the id out and puts it back). */
    find(id: string): Promise<AdapterPayload | undefined> {
      return getOAuthStore().find(this.model, id);
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return getOAuthStore().findSessionByUid(uid);
    }

    /** Device codes are not offered. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    /**
     * Marks a code or a refresh token used. Of two requests that use one at once, one does; the other
     * is a replay, as a second use later is: the grant's tokens are revoked, and the request refused.
     */
    async consume(id: string): Promise<void> {
      const store = getOAuthStore();
      if ((await store.consume(this.model, id)) === 'consumed') return;
      const grantId = (await store.find(this.model, id))?.grantId;
      if (typeof grantId === 'string') await store.revokeGrant(grantId);
      throw new errors.InvalidGrant('grant request is invalid: it was used already');
    }

    async destroy(id: string): Promise<void> {
      await getOAuthStore().destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await getOAuthStore().revokeGrant(grantId);
    }
  };
