import { createHash, timingSafeEqual } from 'node:crypto';
import type { Adapter, AdapterPayload, KoaContextWithOIDC, errors as OidcErrors } from 'oidc-provider';
import { REFRESH_TOKEN_REUSE_GRACE_SECONDS } from '@cm/contract';
import { getOAuthStore } from '../services';

/*
 * oidc-provider's storage, on the single table (@cm/store's OAuthStore): every token, code, grant,
 * session, interaction and registered client by the hash of its id, and a registered client's secret
 * by its hash too. One instance per model.
 */

/**
 * How long a registered client is kept when no sign-in uses it: registrations are open, so the unused
 * ones must not pile up. The first grant keeps it for good.
 */
const UNUSED_CLIENT_SECONDS = 30 * 86_400;

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

/**
 * The adapter class oidc-provider makes one instance of per model; `errors` are oidc-provider's, loaded
 * with it, and `request` the request it serves (oidc-provider's `Provider.ctx`).
 */
export const dynamoAdapter = (errors: typeof OidcErrors, request: () => KoaContextWithOIDC | undefined) =>
  class DynamoAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const store = getOAuthStore();
      const secret = payload.client_secret;
      const kept =
        this.model === 'Client' && typeof secret === 'string' && !secret.startsWith(SECRET_HASH)
          ? { ...payload, client_secret: hashOf(secret) }
          : payload;
      if (this.model === 'Client') return store.registerClient(id, kept, UNUSED_CLIENT_SECONDS);
      // A refresh token a rotation made: its predecessor learns it, for a retry within the grace.
      const rotated = this.model === 'RefreshToken' ? request()?.oidc.entities.RotatedRefreshToken?.jti : undefined;
      // A grant is a sign-in: its client, when registered here (not a metadata document's URL), is kept.
      const used = this.model === 'Grant' && typeof payload.clientId === 'string' ? payload.clientId : undefined;
      await Promise.all([
        store.upsert(this.model, id, kept, expiresIn),
        rotated && store.recordSuccessor(this.model, rotated, id),
        used && !used.startsWith('https://') && store.keepClient(used),
      ]);
    }

    /**
     * What oidc-provider stored, given back (the store only takes the id out and puts it back). A used
     * refresh token within its reuse grace comes back as unused: its second use is a retry (consume).
     */
    async find(id: string): Promise<AdapterPayload | undefined> {
      const store = getOAuthStore();
      const payload = await store.find(this.model, id);
      if (this.model !== 'RefreshToken' || payload?.consumed === undefined) return payload;
      if ((await store.reuseGraceSuccessor(this.model, id, REFRESH_TOKEN_REUSE_GRACE_SECONDS)) === null) return payload;
      const { consumed: _consumed, ...unused } = payload;
      return unused;
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
     * Except a refresh token's second use within the reuse grace, while the token its first use
     * answered is unused: a host retrying a refresh whose answer it lost. That token is marked used
     * instead, and the retry answered with a new one: still one live refresh token in the family.
     */
    async consume(id: string): Promise<void> {
      const store = getOAuthStore();
      if ((await store.consume(this.model, id)) === 'consumed') return;
      if (this.model === 'RefreshToken' && (await this.retried(id))) return;
      const grantId = (await store.find(this.model, id))?.grantId;
      if (typeof grantId === 'string') await store.revokeGrant(grantId);
      throw new errors.InvalidGrant('grant request is invalid: it was used already');
    }

    /** Whether the second use of refresh token `id` is a retry within the grace, which takes it. */
    private async retried(id: string): Promise<boolean> {
      const store = getOAuthStore();
      const successor = await store.reuseGraceSuccessor(this.model, id, REFRESH_TOKEN_REUSE_GRACE_SECONDS);
      return (
        successor !== null && (await store.takeReuseGrace(this.model, id, successor, REFRESH_TOKEN_REUSE_GRACE_SECONDS))
      );
    }

    async destroy(id: string): Promise<void> {
      await getOAuthStore().destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await getOAuthStore().revokeGrant(grantId);
    }
  };
