import { oauthHandler } from '@cm/runtime/oauth';

/** The OAuth authorization server: its metadata, the authorization, token, registration and revocation endpoints, and the consent page. */
export const handler = oauthHandler();
