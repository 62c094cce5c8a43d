import { buildOpenApi, HealthQuery, SERVICE_LIMITS } from '@cm/contract';
import { robotsTxt } from '@cm/core';
import { getStore, iconReply, json, publicApi } from '@cm/runtime';

let openApi: string | undefined;

export const handler = publicApi('discovery', {
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
  'GET /openapi.json': async ({ baseUrl }) => {
    openApi ??= JSON.stringify(buildOpenApi(baseUrl));
    return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: openApi };
  },
});
