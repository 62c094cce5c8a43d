import { BudgetInput, MonitoringInput, UsageQuery } from '@cm/contract';
import { api, getStore, json, searchConsoleRoutes } from '@cm/runtime';
import { budgetView, monitoringView, setBudget, setMonitoring, usageReport } from '@cm/tools';

export const handler = api('usage', {
  'GET /v1/usage': async (request) =>
    json(200, await usageReport(getStore(), request.siteId, request.query(UsageQuery), new Date())),
  'GET /v1/budget': async (request) => json(200, await budgetView(getStore(), request.siteId, new Date())),
  'PUT /v1/budget': async (request) =>
    json(200, await setBudget(getStore(), request.siteId, request.body(BudgetInput), new Date())),
  'GET /v1/monitoring': async (request) => json(200, await monitoringView(getStore(), request.siteId)),
  'PUT /v1/monitoring': async (request) =>
    json(200, await setMonitoring(getStore(), request.siteId, request.body(MonitoringInput), new Date())),
  ...searchConsoleRoutes,
});
