import { buildOpenApi, HealthQuery, protectedResourceMetadata, SERVICE_LIMITS, type OAuthResource } from '@cm/contract';
import { robotsTxt } from '@cm/core';
import { iconReply, json } from './http/replies';
import type { RouteHandler } from './http/request';
import { getStore } from './services';
import { unroutedReply } from './unrouted';

/*
 * The discovery function's answers: the health check, the pages' icon and the API's robots.txt at the
 * root, the protected resources' metadata, the OpenAPI document, and what no route takes.
 */

/** Cheap unless asked for more: deep=1 reads the table once (503 service_unavailable when it cannot be reached). */
export const healthRoute: RouteHandler = async (request) => {
  if (request.query(HealthQuery).deep === '1') await getStore().ping();
  return json(200, { ok: true });
};

export const robotsRoute: RouteHandler = async () => ({
  statusCode: 200,
  headers: {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': `public, max-age=${SERVICE_LIMITS.visitorMaxAgeSeconds}`,
  },
  body: robotsTxt(),
});

/** A protected resource's RFC 9728 metadata: any page may read it (browser-based clients discover with it). */
export const metadataRoute =
  (resource: OAuthResource): RouteHandler =>
  async ({ baseUrl }) =>
    json(200, protectedResourceMetadata(baseUrl, resource), {
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=3600',
    });

let openApi: string | undefined;

export const openApiRoute: RouteHandler = async ({ baseUrl }) => {
  openApi ??= JSON.stringify(buildOpenApi(baseUrl));
  return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: openApi };
};

/** The pages' icon, which browsers ask every host for at its root. */
export const iconRoute: RouteHandler = async () => iconReply();

/** What no route takes (API Gateway's default integration): a preflight, 405 on an OAuth path, else 404. */
export const unroutedRoute: RouteHandler = async ({ event }) => unroutedReply(event);
