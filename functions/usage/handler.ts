import { UsageQuery } from '@cm/contract';
import { api, getStore, json } from '@cm/runtime';

const startOfUtcMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();

export const handler = api('usage', {
  'GET /v1/usage': async (request) => {
    const query = request.query(UsageQuery);
    const now = new Date();
    return json(200, await getStore().usage.report(request.siteId, query.from ?? startOfUtcMonth(now), query.to ?? now.toISOString()));
  },
});
