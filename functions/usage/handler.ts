import { UsageQuery } from '@cm/contract';
import { monthStart } from '@cm/core';
import { api, getStore, json } from '@cm/runtime';

export const handler = api('usage', {
  'GET /v1/usage': async (request) => {
    const query = request.query(UsageQuery);
    const now = new Date();
    return json(200, await getStore().usage.report(request.siteId, query.from ?? monthStart(now, 0).toISOString(), query.to ?? now.toISOString()));
  },
});
