import type { FunctionName, WorkerName } from '@cm/contract';
import type { WorkerHandler } from './queue';
import type { ApiHandler } from './server';
import { handler as addCompetitor } from '../../../functions/add-competitor/handler';
import { handler as dashboard } from '../../../functions/dashboard/handler';
import { handler as dbDelete } from '../../../functions/db-delete/handler';
import { handler as dbInsert } from '../../../functions/db-insert/handler';
import { handler as dbSelect } from '../../../functions/db-select/handler';
import { handler as discovery } from '../../../functions/discovery/handler';
import { handler as getKeywords } from '../../../functions/get-keywords/handler';
import { handler as notify } from '../../../functions/notify/handler';
import { handler as oauth } from '../../../functions/oauth/handler';
import { handler as publish } from '../../../functions/publish/handler';
import { handler as questionParts } from '../../../functions/question-parts/handler';
import { handler as read } from '../../../functions/read/handler';
import { handler as jobs } from '../../../functions/jobs/handler';
import { handler as mcp } from '../../../functions/mcp/handler';
import { stream as mcpStream } from '../../../functions/mcp-stream/handler';
import { handler as monitorPlanWorker } from '../../../functions/monitor-plan-worker/handler';
import { handler as monitorWorker } from '../../../functions/monitor-worker/handler';
import { handler as rankCollectWorker } from '../../../functions/rank-collect-worker/handler';
import { handler as budgetWarningWorker } from '../../../functions/budget-warning-worker/handler';
import { handler as indexNowWorker } from '../../../functions/indexnow-worker/handler';
import { handler as rankWorker } from '../../../functions/rank-worker/handler';
import { handler as searchConsoleWorker } from '../../../functions/search-console-worker/handler';
import { handler as recall } from '../../../functions/recall/handler';
import { handler as relinkWorker } from '../../../functions/relink-worker/handler';
import { handler as relinkPagesWorker } from '../../../functions/relink-pages-worker/handler';
import { handler as research } from '../../../functions/research/handler';
import { handler as researchWorker } from '../../../functions/research-worker/handler';
import { handler as serpBacklinks } from '../../../functions/serp-backlinks/handler';
import { handler as serpKeywordRefresh } from '../../../functions/serp-keyword-refresh/handler';
import { handler as serpLandscape } from '../../../functions/serp-landscape/handler';
import { handler as searchTraffic } from '../../../functions/search-traffic/handler';
import { handler as siteFiles } from '../../../functions/site-files/handler';
import { handler as tools } from '../../../functions/tools/handler';
import { handler as trackRankings } from '../../../functions/track-rankings/handler';
import { handler as usage } from '../../../functions/usage/handler';
import { handler as visitor } from '../../../functions/visitor/handler';

/** The handler module of every function in the route table: the same modules the Lambdas bundle. */
export const API_HANDLERS: Record<FunctionName, ApiHandler> = {
  discovery,
  publish,
  read,
  'question-parts': questionParts,
  visitor,
  'site-files': siteFiles,
  notify,
  tools,
  usage,
  jobs,
  research,
  recall,
  'get-keywords': getKeywords,
  'serp-landscape': serpLandscape,
  'search-traffic': searchTraffic,
  'serp-keyword-refresh': serpKeywordRefresh,
  'serp-backlinks': serpBacklinks,
  'add-competitor': addCompetitor,
  'track-rankings': trackRankings,
  'db-select': dbSelect,
  'db-insert': dbInsert,
  'db-delete': dbDelete,
  dashboard,
  mcp,
  oauth,
};

/** The worker of every queue: the same modules the worker Lambdas bundle. */
export const WORKER_HANDLERS: Record<WorkerName, WorkerHandler> = {
  relink: relinkWorker,
  'relink-pages': relinkPagesWorker,
  research: researchWorker,
  monitor: monitorWorker,
  'monitor-plan': monitorPlanWorker,
  rank: rankWorker,
  'rank-collect': rankCollectWorker,
  'budget-warning': budgetWarningWorker,
  indexnow: indexNowWorker,
  'search-console': searchConsoleWorker,
};

/** The daily schedule's function (EventBridge on AWS, a timer here): monitoring, and the rank checks. */
export { handler as monitorSchedule } from '../../../functions/monitor-schedule/handler';
/** The research sweep's function (EventBridge on AWS, a timer here). */
export { handler as researchSweep } from '../../../functions/research-sweep/handler';
/** The page schedule's function (EventBridge on AWS, a timer here): the scheduled publishes and take-downs due. */
export { handler as pageSchedule } from '../../../functions/page-schedule/handler';

/** The streaming MCP endpoint's core: the mcp-stream function's, which Lambda streams behind its function URL. */
export const MCP_STREAM_HANDLER = mcpStream;
