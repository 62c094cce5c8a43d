import { BudgetInput, MonitoringInput, UsageQuery } from '@cm/contract';
import { monthStart } from '@cm/core';
import { api, getStore, json } from '@cm/runtime';
import { budgetView, monitoringView, setBudget, setMonitoring } from '@cm/tools';

export const handler = api('usage', {
  'GET /v1/usage': async (request) => {
    const query = request.query(UsageQuery);
    const now = new Date();
    const from = query.from ?? monthStart(now, 0).toISOString();
    return json(
      200,
      await getStore().usage.report(request.siteId, from, query.to ?? now.toISOString(), { byDay: query.by === 'day' }),
    );
  },
  'GET /v1/budget': async (request) => json(200, await budgetView(getStore(), request.siteId, new Date())),
  'PUT /v1/budget': async (request) =>
    json(200, await setBudget(getStore(), request.siteId, request.body(BudgetInput), new Date())),
  'GET /v1/monitoring': async (request) => json(200, await monitoringView(getStore(), request.siteId)),
  'PUT /v1/monitoring': async (request) =>
    json(200, await setMonitoring(getStore(), request.siteId, request.body(MonitoringInput), new Date())),
});
