import {
  isToolFunction,
  QUEUES,
  TOOL_NAMES,
  toolFunction,
  toolOfFunction,
  TOOLS,
  WORKERS,
  type FunctionGrants,
  type TableAccess,
  type ToolFunction,
  type WorkerName,
} from '@cm/contract';
import { perWorkerFunction, workerFunction, type FunctionId } from './bundling';

/**
 * The item actions of each table access level: no scans, no streams, no table administration.
 * Writers remove items in batches (BatchWriteItem); only deleting a row takes DeleteItem.
 */
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const WRITE = [...READ, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'];
export const TABLE_ACTIONS = {
  none: [],
  read: READ,
  // The mcp function's: it writes only the large results it keeps, in batches.
  readBatchWrite: [...READ, 'dynamodb:BatchWriteItem'],
  readWrite: WRITE,
  readWriteDelete: [...WRITE, 'dynamodb:DeleteItem'],
} as const satisfies Record<TableAccess, readonly string[]>;

/** What a function may do to the table, and which queues it sends to. */
export type FunctionAccess = Omit<FunctionGrants<WorkerName>, 'secrets'>;

/**
 * What each function but the tools' may do to the table, and which queues it sends to: no more than
 * its work needs. A tool's function has its tool's grants (its declaration, contract/src/tools/).
 */
const ACCESS: Record<Exclude<FunctionId, ToolFunction>, FunctionAccess> = {
  // GET /health?deep=1 reads one item.
  discovery: { table: 'read' },
  publish: { table: 'readWrite', sendsTo: ['relink', 'indexnow'] },
  read: { table: 'read' },
  'question-parts': { table: 'readWrite' },
  visitor: { table: 'read' },
  'site-files': { table: 'read' },
  notify: { table: 'readWrite', sendsTo: ['relink', 'indexnow'] },
  tools: { table: 'read' },
  // PUT /v1/budget sets the site's limits; PUT /v1/search-console connects (its backfill queued), DELETE disconnects.
  usage: { table: 'readWriteDelete', sendsTo: ['search-console'] },
  jobs: { table: 'read' },
  // Static files: the app reads the site's data through the API with the user's key.
  dashboard: { table: 'none' },
  // It checks the API key itself (one GetItem), then invokes the tools' own functions to run them; a
  // result too large for one reply is kept (BatchWriteItem) for its pages and resource.
  mcp: { table: 'readBatchWrite' },
  // The same, streaming; it also records the approval questions it asks (PutItem) and takes the
  // client's answers to them (UpdateItem).
  'mcp-stream': { table: 'readWrite' },
  // The authorization server: tokens, codes, grants, sessions and clients (put, update, batch write),
  // deleted one at a time when used up or revoked (DeleteItem); it reads sites and keys for sign-in.
  oauth: { table: 'readWriteDelete' },
  // Each worker's, as its queue declares (QUEUES).
  ...perWorkerFunction((worker) => QUEUES[worker].grants),
  // The daily monitoring: it reads the site sequence and sends a plan message per block of sites.
  'monitor-schedule': { table: 'read', sendsTo: ['monitor-plan'] },
  // Ends research jobs whose lease lapsed, frees their places, and queues the jobs waiting for one.
  'research-sweep': { table: 'readWrite', sendsTo: ['research'] },
  // Applies the pages' scheduled changes due, removes each, and queues the relinks they owe.
  'page-schedule': { table: 'readWrite', sendsTo: ['relink', 'indexnow'] },
};

/** What a function may do to the table, and which queues it sends to. */
export function accessOf(fn: FunctionId): FunctionAccess {
  return isToolFunction(fn) ? TOOLS[toolOfFunction(fn)].grants : ACCESS[fn];
}

/** The functions that call DataForSEO, and so read its credentials (research: keywords mode). */
export const DATAFORSEO_READERS: readonly FunctionId[] = [
  ...TOOL_NAMES.filter((name) => TOOLS[name].grants.secrets?.includes('dataforseo')).map(toolFunction),
  ...WORKERS.filter((worker) => QUEUES[worker].grants.secrets?.includes('dataforseo')).map(workerFunction),
];
