import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { oauthIdHash, oauthKey } from './keys';
import { decodeAccessTokenPayload, decodeOAuthItem, type AccessTokenPayload } from './oauth.decoder';

/**
 * OAuth access tokens as the API reads them to serve their owners: by the token's hash, what the
 * authorization server (OAuthStore, in the oauth function alone) stored of it. Apart from OAuthStore so
 * that every function checks tokens without carrying the authorization server's storage.
 */
export class AccessTokenStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The token's owner, scope, resource and expiry: one GetItem; null when there is no such token. */
  async find(token: string): Promise<AccessTokenPayload | null> {
    const key = oauthKey('AccessToken', oauthIdHash(token));
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key }));
    return out.Item ? decodeAccessTokenPayload(JSON.parse(decodeOAuthItem(out.Item, key).payload)) : null;
  }
}
