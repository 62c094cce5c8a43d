import type { IncomingMessage } from 'node:http';
import serverless from 'serverless-http';
import { AUTHORIZATION_SERVER_METADATA_PATHS, ROUTE_TABLE, routeKey } from '@cm/contract';
import { clientAddressOf } from '../client-address';
import { baseUrlOf } from '../http/request';
import { publicApi, type Handlers } from '../http/router';
import { providerOf } from './provider';
import { decodeServedReply } from './reply.decoder';

/*
 * The oauth function (docs/api.md#oauth): the authorization server's routes, behind the same
 * observation, error replies, origin check and body limit as every route's, each handed to
 * oidc-provider (a Koa app) through serverless-http, which turns the payload 2.0 event into a Node
 * request and the response back, cookies included.
 */

const [RFC8414_METADATA, OPENID_METADATA] = AUTHORIZATION_SERVER_METADATA_PATHS;

/** Each base's authorization server as a Lambda handler of payload 2.0 events. */
const served = new Map<string, ReturnType<typeof serverless>>();

/** The authorization server of the oauth function's every route. */
export function oauthHandler() {
  const handlers: Handlers = {};
  for (const route of ROUTE_TABLE.filter((r) => r.fn === 'oauth'))
    handlers[routeKey(route)] = async ({ event }) => {
      const base = baseUrlOf(event);
      let serve = served.get(base);
      if (!serve) {
        // serverless-http's requests say they came over TLS; the base's scheme says how they did.
        const https = base.startsWith('https:');
        serve = serverless((await providerOf(base)).callback(), {
          request: (request: IncomingMessage) => Reflect.set(request.socket, 'encrypted', https),
        });
        served.set(base, serve);
      }
      // RFC 8414's metadata is oidc-provider's discovery document, which it serves at OpenID Connect's path.
      const path = event.rawPath === RFC8414_METADATA ? OPENID_METADATA : event.rawPath;
      // oidc-provider (a Koa app behind a proxy) builds its URLs from the forwarded scheme and host: the
      // base's, never what a client sent (a bad one was a 500, another host a metadata that sends there).
      const { 'x-forwarded-host': _host, forwarded: _forwarded, ...sent } = event.headers;
      const origin = new URL(base);
      const headers = { ...sent, host: origin.host, 'x-forwarded-proto': origin.protocol.slice(0, -1) };
      // The consent page counts wrong keys by the request's source: the client's, not the edge's.
      const http = { ...event.requestContext.http, sourceIp: clientAddressOf(event) };
      const requestContext = { ...event.requestContext, http };
      return decodeServedReply(await serve({ ...event, rawPath: path, headers, requestContext }, {}));
    };
  return publicApi('oauth', handlers, { json: false });
}
