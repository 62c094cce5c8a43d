import { QUEUES, WORKERS, type WorkerName } from '@cm/contract';
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
} as const;
export type TableAccess = keyof typeof TABLE_ACTIONS;

export interface FunctionAccess {
  table: TableAccess;
  /** The worker queues it sends to. */
  sendsTo?: readonly WorkerName[];
}

/** What each function may do to the table, and which queues it sends to: no more than its work needs. */
export const ACCESS: Record<FunctionId, FunctionAccess> = {
  // GET /health?deep=1 reads one item.
  discovery: { table: 'read' },
  publish: { table: 'readWrite', sendsTo: ['relink'] },
  read: { table: 'read' },
  'question-parts': { table: 'readWrite' },
  visitor: { table: 'read' },
  'site-files': { table: 'read' },
  notify: { table: 'readWrite', sendsTo: ['relink'] },
  tools: { table: 'read' },
  // PUT /v1/budget sets the site's limits.
  usage: { table: 'readWrite' },
  jobs: { table: 'read' },
  // A paid call that takes a site's window past 80% (or is refused at 100%) queues its warning.
  research: { table: 'readWrite', sendsTo: ['research', 'budget-warning'] },
  recall: { table: 'read' },
  'get-keywords': { table: 'readWrite', sendsTo: ['budget-warning'] },
  // analyze queues its keywords' research.
  'serp-landscape': { table: 'readWrite', sendsTo: ['research', 'budget-warning'] },
  'serp-keyword-refresh': { table: 'readWrite', sendsTo: ['budget-warning'] },
  // Live lookups are written to the usage ledger.
  'serp-backlinks': { table: 'readWrite', sendsTo: ['budget-warning'] },
  // Deleting a row (DeleteItem): db_delete, and taking back a competitor row that lost its place under
  // the cap. It queues the first monitoring run of a new competitor, at once.
  'add-competitor': { table: 'readWriteDelete', sendsTo: ['monitor', 'budget-warning'] },
  // Tracking off deletes the scope's item (DeleteItem); tracking on queues the scope's first check.
  'track-rankings': { table: 'readWriteDelete', sendsTo: ['rank', 'budget-warning'] },
  'db-select': { table: 'read' },
  'db-insert': { table: 'readWriteDelete' },
  'db-delete': { table: 'readWriteDelete' },
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
};

/** The functions that call DataForSEO, and so read its credentials (research: keywords mode). */
export const DATAFORSEO_READERS: readonly FunctionId[] = [
  'get-keywords',
  'research',
  'serp-landscape',
  'serp-keyword-refresh',
  'serp-backlinks',
  ...WORKERS.filter((worker) => QUEUES[worker].grants.secrets?.includes('dataforseo')).map(workerFunction),
];
