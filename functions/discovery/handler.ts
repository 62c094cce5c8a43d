import { buildOpenApi } from '@cm/contract';
// Only the HTTP module: the runtime's index would bring the store and its DynamoDB client along.
import { json, publicApi } from '@cm/runtime/http';

let openApi: string | undefined;

export const handler = publicApi('discovery', {
  'GET /health': async () => json(200, { ok: true }),
  'GET /openapi.json': async ({ baseUrl }) => {
    openApi ??= JSON.stringify(buildOpenApi(baseUrl));
    return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: openApi };
  },
});
