import {
  buildOpenApi,
  HealthQuery,
  MCP_OAUTH_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
  SERVICE_LIMITS,
  type OAuthResource,
} from '@cm/contract';
import { robotsTxt } from '@cm/core';
import { getStore, iconReply, json, publicApi, unroutedReply } from '@cm/runtime';

let openApi: string | undefined;

/** A protected resource's RFC 9728 metadata: any page may read it (browser-based clients discover with it). */
const resourceMetadata =
  (resource: OAuthResource) =>
  async ({ baseUrl }: { baseUrl: string }) =>
    json(200, protectedResourceMetadata(baseUrl, resource), {
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=3600',
    });

export const handler = publicApi(
  'discovery',
  {
    // Cheap unless asked for more: deep=1 reads the table once (503 service_unavailable when it cannot be reached).
    'GET /health': async (request) => {
      if (request.query(HealthQuery).deep === '1') await getStore().ping();
      return json(200, { ok: true });
    },
    'GET /favicon.ico': async () => iconReply(),
    'GET /robots.txt': async () => ({
      statusCode: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': `public, max-age=${SERVICE_LIMITS.visitorMaxAgeSeconds}`,
      },
      body: robotsTxt(),
    }),
    // The MCP endpoint's, at its path and at the root, where clients that read no challenge look.
    [`GET ${PROTECTED_RESOURCE_METADATA_PATH}`]: resourceMetadata('mcp'),
    [`GET ${PROTECTED_RESOURCE_METADATA_PATH}${MCP_OAUTH_PATH}`]: resourceMetadata('mcp'),
    [`GET ${PROTECTED_RESOURCE_METADATA_PATH}/v1`]: resourceMetadata('rest'),
    'GET /openapi.json': async ({ baseUrl }) => {
      openApi ??= JSON.stringify(buildOpenApi(baseUrl));
      return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: openApi };
    },
    // What no route takes (API Gateway's default integration): a preflight, 405 on an OAuth path, else 404.
    $default: async ({ event }) => unroutedReply(event),
  },
  // No route here reads a body: a wrong method's is not parsed before it is refused.
  { json: false },
);
