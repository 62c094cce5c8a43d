import { join } from 'node:path';
import { DashboardAssetParams } from '@cm/contract';
import { dashboardFiles } from '@cm/dashboard';
// Only the HTTP module and the configuration: the dashboard reads no table, so it bundles no DynamoDB client.
import { getConfig } from '@cm/runtime/config';
import { publicApi } from '@cm/runtime/http';

// The bundling puts the built app beside the handler; the local stack builds it and names its folder.
const files = dashboardFiles(() => getConfig().dashboardDir ?? join(__dirname, 'dashboard'));

export const handler = publicApi('dashboard', {
  'GET /dashboard': async () => files.page(),
  'GET /dashboard/assets/{file}': async (request) => files.asset(request.params(DashboardAssetParams).file),
});
