import { MCP_OAUTH_PATH, PROTECTED_RESOURCE_METADATA_PATH as METADATA } from '@cm/contract';
import { healthRoute, iconRoute, metadataRoute, openApiRoute, robotsRoute, unroutedRoute } from '@cm/runtime';
import { publicApi } from '@cm/runtime/http';

export const handler = publicApi(
  'discovery',
  {
    'GET /health': healthRoute,
    'GET /favicon.ico': iconRoute,
    'GET /robots.txt': robotsRoute,
    // The MCP endpoint's metadata, at its path and at the root, where clients that read no challenge look.
    [`GET ${METADATA}`]: metadataRoute('mcp'),
    [`GET ${METADATA}${MCP_OAUTH_PATH}`]: metadataRoute('mcp'),
    [`GET ${METADATA}/v1`]: metadataRoute('rest'),
    'GET /openapi.json': openApiRoute,
    $default: unroutedRoute,
  },
  // No route here reads a body: a wrong method's is not parsed before it is refused.
  { json: false },
);
