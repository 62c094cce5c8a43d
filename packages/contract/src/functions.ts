import type { WorkerName } from './queues';
import { TOOL_NAMES, toolFunction } from './tool-heads';

/*
 * The deployment's Lambda functions by name. Both the route table (routes.ts) and the tool heads
 * (tool-heads.ts) name which function serves what, so the names live here, below both.
 */

/** The functions that serve HTTP routes: ROUTES says which serves which route, TOOL_HEADS which serves which tool. */
export const FUNCTIONS = [
  'discovery',
  'publish',
  'read',
  'question-parts',
  'visitor',
  // A site's sitemaps, feed and (on its own domain) robots.txt.
  'site-files',
  'notify',
  'tools',
  'usage',
  'jobs',
  // One function per research tool (TOOL_HEADS names which serves which).
  ...TOOL_NAMES.map(toolFunction),
  // The dashboard's page and files: a client of the API like any other.
  'dashboard',
  // The MCP endpoint: it runs each tool by invoking that tool's own function.
  'mcp',
  // The OAuth authorization server: sign-in with the site's key, tokens for agents.
  'oauth',
] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

export { WORKERS, type WorkerName } from './queues';

/** The environment variable with a worker queue's URL, for the functions that send to it. */
export const queueUrlEnvName = (queue: WorkerName): string => `${queue.toUpperCase().replace(/-/g, '_')}_QUEUE_URL`;

/** The environment variable that names a function's deployed Lambda, for the functions that invoke it (mcp). */
export const functionEnvName = (fn: FunctionName): string => `FUNCTION_${fn.toUpperCase().replace(/-/g, '_')}`;
