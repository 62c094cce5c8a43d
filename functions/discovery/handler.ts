import { buildOpenApi } from '@cm/contract';
import { api, json } from '@cm/runtime';

let openApi: string | undefined;

export const handler = api('discovery', {
  'GET /health': async () => json(200, { ok: true }),
  'GET /openapi.json': async ({ baseUrl }) => {
    openApi ??= JSON.stringify(buildOpenApi(baseUrl));
    return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: openApi };
  },
});
