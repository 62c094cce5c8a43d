export { ASSETS_PATH, DASHBOARD_CSP, dashboardFiles, type DashboardFile, type FileReply } from './files';
