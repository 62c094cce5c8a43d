export { DASHBOARD_CSP, dashboardFiles, type DashboardFile } from './files';
