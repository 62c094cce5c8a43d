import { BudgetInput, MonitoringInput, SearchConsoleInput, UsageQuery } from '@cm/contract';
import { api, enqueue, getSearchConsole, getStore, json } from '@cm/runtime';
import {
  budgetView,
  connectSearchConsole,
  disconnectSearchConsole,
  monitoringView,
  searchConsoleView,
  setBudget,
  setMonitoring,
  usageReport,
} from '@cm/tools';

/** The site's Search Console connection's deps: the store, its queue, and the account the owner adds. */
const searchConsole = async () => ({
  store: getStore(),
  enqueue,
  serviceAccount: (await getSearchConsole()).serviceAccount,
});

export const handler = api('usage', {
  'GET /v1/usage': async (request) =>
    json(200, await usageReport(getStore(), request.siteId, request.query(UsageQuery), new Date())),
  'GET /v1/budget': async (request) => json(200, await budgetView(getStore(), request.siteId, new Date())),
  'PUT /v1/budget': async (request) =>
    json(200, await setBudget(getStore(), request.siteId, request.body(BudgetInput), new Date())),
  'GET /v1/monitoring': async (request) => json(200, await monitoringView(getStore(), request.siteId)),
  'PUT /v1/monitoring': async (request) =>
    json(200, await setMonitoring(getStore(), request.siteId, request.body(MonitoringInput), new Date())),
  'GET /v1/search-console': async (request) =>
    json(200, await searchConsoleView(await searchConsole(), request.siteId)),
  'PUT /v1/search-console': async (request) =>
    json(
      200,
      await connectSearchConsole(await searchConsole(), request.siteId, request.body(SearchConsoleInput), new Date()),
    ),
  'DELETE /v1/search-console': async (request) =>
    json(200, await disconnectSearchConsole(await searchConsole(), request.siteId)),
});
