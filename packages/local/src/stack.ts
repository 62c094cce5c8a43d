import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import {
  PAGE_SCHEDULE_MINUTES,
  perWorker,
  RATE_RULES,
  RESEARCH_SWEEP_MINUTES,
  type RateRule,
  type WorkerName,
} from '@cm/contract';
import { buildDashboard } from '@cm/dashboard/build';
import { buildMcpApps } from '@cm/dashboard/mcp-apps';
import { cachedBuilds } from './builds';
import { INDEXNOW_SANDBOX, logger, resetServices, setQueueTransport } from '@cm/runtime';
import { setFunctionInvoker } from '@cm/runtime/mcp';
import { createDocumentClient, createStore } from '@cm/store';
import type { ScheduleSweep } from '@cm/publishing';
import type { ScheduleBudget } from '@cm/tools';
import { lambdaContext, scheduledEvent } from './context';
import { dynamoEngine, ensureTable, startDynamo, type DynamoEngine, type EmbeddedDynamo } from './dynamo';
import {
  API_HANDLERS,
  MCP_STREAM_HANDLER,
  WORKER_HANDLERS,
  monitorSchedule,
  pageSchedule,
  researchSweep,
} from './handlers';
import { InProcessQueue, type QueueOptions } from './queue';
import { createApiServer, createStreamServer, listen, ROUTE_TIMEOUT_MS } from './server';
import { RateLimiter } from './rate-limits';
import { decodeDemoSite, type DemoSite } from './stack.decoder';

export type { DemoSite } from './stack.decoder';

export interface LocalStackOptions {
  /** Keep nothing on disk. */
  memory?: boolean;
  /** Where data is kept (default `.data`). */
  dataDir?: string;
  /** HTTP port of the API; 0 picks a free one. */
  port?: number;
  /** HTTP port of the streaming MCP endpoint (the function URL on AWS); 0 picks a free one. */
  streamPort?: number;
  /** Port of the embedded DynamoDB; 0 picks a free one. */
  dynamoPort?: number;
  /** The DynamoDB engine (default: the `DYNAMO_ENGINE` setting, else dynalite). */
  engine?: DynamoEngine;
  tableName?: string;
  /** Create a demo site with an API key on first start. */
  demoSite?: boolean;
  /** Overrides, for every worker, of the queue settings the in-process queues share with AWS. */
  queues?: QueueOptions;
  /**
   * Run the monitoring schedule, the research sweep and the page schedule on their timers (default
   * true). The benchmark and the test stacks turn them off, so no DynamoDB request of theirs lands among
   * the ones they time or count; `runSchedule`, `sweep` and `sweepPageSchedules` still run them on demand.
   */
  schedules?: boolean;
  /**
   * The rate rules the servers apply, as WAF does in front of the API and the streaming endpoint on AWS
   * (default RATE_RULES; none: no limits, as the test stacks and the benchmark run).
   */
  rateRules?: readonly RateRule[];
}

export interface LocalStack {
  url: string;
  /** The streaming MCP endpoint, as the mcp-stream function's URL serves it on AWS (`<url>/mcp`). */
  mcpStreamUrl: string;
  dynamo: EmbeddedDynamo;
  tableName: string;
  demo: DemoSite | null;
  /** Whether the demo site was created by this start. */
  demoCreated: boolean;
  /** The in-process queue of each worker. */
  queues: Record<WorkerName, InProcessQueue>;
  /** Resolves once every queue is idle (messages a worker sends while handling are waited for too). */
  drain(): Promise<void>;
  /**
   * Runs the daily schedule now, as its daily timer does (or as if it fired at `at`: the rank checks' day):
   * the sites it planned for, in how many plan messages, and with a deployment cap what it found of it.
   */
  runSchedule(at?: Date): Promise<{ sites: number; plans: number; budget?: ScheduleBudget }>;
  /** Runs the research sweep now, as its timer does: research jobs whose lease lapsed end, their places are freed, and waiting jobs get the places free. */
  sweep(): Promise<{ expired: number; freed: number; admitted: number }>;
  /** Runs the page schedule now (or as if its timer fired at `at`), as its timer does: the scheduled publishes and take-downs due. */
  sweepPageSchedules(at?: Date): Promise<ScheduleSweep>;
  stop(): Promise<void>;
}

/** How often monitoring runs: daily, as the EventBridge schedule on AWS. */
const MONITOR_EVERY_MS = 24 * 3_600_000;
/** The schedule function's time limit, as on AWS. */
const SCHEDULE_TIMEOUT_MS = 5 * 60_000;

const builtDashboard = async (dir: string) => {
  await buildDashboard(dir);
  return dir;
};

const builtMcpApps = async (dir: string) => {
  await buildMcpApps(dir);
  return dir;
};

/**
 * A data directory belongs to the engine that made it (their files differ: dynalite's LevelDB folder,
 * DynamoDB Local's SQLite file), so starting it on the other engine stops with what to do instead of
 * showing an empty site whose key the directory still has.
 */
function checkDataDirEngine(dataDir: string, engine: DynamoEngine): void {
  const marker = join(dataDir, 'engine');
  // A directory from before the marker was made by dynalite, the only engine then.
  const owner = existsSync(marker)
    ? readFileSync(marker, 'utf8').trim()
    : existsSync(join(dataDir, 'dynamodb'))
      ? 'dynalite'
      : undefined;
  if (owner !== undefined && owner !== engine) {
    throw new Error(
      `The data directory ${dataDir} holds ${owner}'s data, not ${engine}'s: set DATA_DIR to another directory for ${engine}, use --memory, or start with --engine ${owner}.`,
    );
  }
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  if (owner === undefined || !existsSync(marker)) writeFileSync(marker, `${engine}\n`);
}

/**
 * The authorization server's secret (OAUTH_SECRET, the stack's `OAuthSecret` on AWS): kept in the data
 * directory, so sign-ins and consent forms outlive a restart; a new one per process with `--memory`.
 */
function oauthSecret(dataDir: string, memory: boolean | undefined): string {
  const file = join(dataDir, 'oauth-secret');
  if (!memory && existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  if (!memory) writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The embedded DynamoDB, on the data directory's engine (nothing on disk with `memory`). */
async function startEmbeddedDynamo(options: LocalStackOptions, dataDir: string): Promise<EmbeddedDynamo> {
  const engine = options.engine ?? dynamoEngine();
  if (!options.memory) checkDataDirEngine(dataDir, engine);
  return startDynamo({
    engine,
    port: options.dynamoPort ?? 8000,
    path: options.memory ? undefined : join(dataDir, 'dynamodb'),
  });
}

/**
 * The table, the dashboard's app and the MCP Apps' HTML, and the environment the handlers read, as a
 * Lambda's: the dashboard's and mcp functions' bundling builds them; the dashboard's handler reads its
 * folder, and the mcp function an App's file when asked for it.
 */
async function prepareHandlers(
  options: LocalStackOptions,
  dataDir: string,
  dynamo: EmbeddedDynamo,
  tableName: string,
): Promise<void> {
  await ensureTable(dynamo.endpoint, tableName);
  const { dashboardDir, mcpAppsDir } = options.memory
    ? await cachedBuilds()
    : await Promise.all([builtDashboard(join(dataDir, 'dashboard')), builtMcpApps(join(dataDir, 'mcp-apps'))]).then(
        ([dashboard, apps]) => ({ dashboardDir: dashboard, mcpAppsDir: apps }),
      );
  process.env.DASHBOARD_DIR = dashboardDir;
  process.env.MCP_APPS_DIR = mcpAppsDir;
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.OAUTH_SECRET ||= oauthSecret(dataDir, options.memory);
  // No internet: sites' changes go to IndexNow only where INDEXNOW_ENDPOINT names it.
  process.env.INDEXNOW_ENDPOINT ||= INDEXNOW_SANDBOX;
  resetServices();
}

/** The demo site: the one kept in the data directory, else one made now (and kept, unless `memory`). */
async function demoSiteOf(
  options: LocalStackOptions,
  dataDir: string,
  dynamo: EmbeddedDynamo,
  tableName: string,
): Promise<{ demo: DemoSite | null; demoCreated: boolean }> {
  if (!options.demoSite) return { demo: null, demoCreated: false };
  const demoFile = join(dataDir, 'demo-site.json');
  if (!options.memory && existsSync(demoFile))
    return { demo: decodeDemoSite(demoFile, readFileSync(demoFile, 'utf8')), demoCreated: false };
  const store = createStore(createDocumentClient({ endpoint: dynamo.endpoint }), tableName);
  const created = await store.sites.create({ name: 'Demo site', domain: 'demo.example.com', locale: 'US/en' });
  const demo = { site_id: created.site.site_id, api_key: created.api_key };
  if (!options.memory) writeFileSync(demoFile, `${JSON.stringify(demo)}\n`, { mode: 0o600 });
  return { demo, demoCreated: true };
}

/** Each worker's in-process queue, in WORKERS order (the order they restore and drain in), where enqueue sends. */
function startQueues(options: LocalStackOptions, dataDir: string): Record<WorkerName, InProcessQueue> {
  // On disk, each queue keeps its pending messages, so a restart delivers what a stopped or killed process left.
  if (!options.memory) mkdirSync(join(dataDir, 'queues'), { recursive: true });
  const queueOptions = (name: WorkerName): QueueOptions => ({
    ...options.queues,
    ...(options.memory ? {} : { journal: join(dataDir, 'queues', `${name}.jsonl`) }),
  });
  const queues = perWorker((name) => new InProcessQueue(name, WORKER_HANDLERS[name], queueOptions(name)));
  setQueueTransport({ send: (queue, body, delaySeconds) => queues[queue].send(body, (delaySeconds ?? 0) * 1000) });
  return queues;
}

/**
 * The daily schedule, the research sweep and the page schedule, as EventBridge runs them on AWS, on timers (unless
 * `schedules` is false) unref'd so they never keep the process up.
 */
function startSchedules(options: LocalStackOptions) {
  const runSchedule = (at = new Date()) =>
    monitorSchedule(scheduledEvent(at), lambdaContext('monitor-schedule', SCHEDULE_TIMEOUT_MS));
  const sweep = async () =>
    researchSweep(scheduledEvent(new Date()), lambdaContext('research-sweep', SCHEDULE_TIMEOUT_MS));
  const sweepPageSchedules = (at = new Date()) =>
    pageSchedule(scheduledEvent(at), lambdaContext('page-schedule', SCHEDULE_TIMEOUT_MS));
  const timers = options.schedules ?? true;
  const schedule = timers
    ? setInterval(
        () => void runSchedule().catch((error: unknown) => logger.error('monitoring schedule failed', { error })),
        MONITOR_EVERY_MS,
      )
    : undefined;
  schedule?.unref();
  const sweeper = timers
    ? setInterval(
        () => void sweep().catch((error: unknown) => logger.error('research sweep failed', { error })),
        RESEARCH_SWEEP_MINUTES * 60_000,
      )
    : undefined;
  sweeper?.unref();
  const pageSweeper = timers
    ? setInterval(
        () => void sweepPageSchedules().catch((error: unknown) => logger.error('page schedule failed', { error })),
        PAGE_SCHEDULE_MINUTES * 60_000,
      )
    : undefined;
  pageSweeper?.unref();
  return {
    runSchedule,
    sweep,
    sweepPageSchedules,
    stop: () => {
      clearInterval(schedule);
      clearInterval(sweeper);
      clearInterval(pageSweeper);
    },
  };
}

/**
 * The API's server and the streaming MCP endpoint's beside it (the next port, or a free one too), each
 * pushed onto `made` once made, so a start that fails later closes them; the mcp function runs each
 * tool's own function in-process, as Lambda Invoke does on AWS.
 */
async function startServers(options: LocalStackOptions, made: Server[]) {
  setFunctionInvoker((fn, event) => API_HANDLERS[fn](event, lambdaContext(fn, ROUTE_TIMEOUT_MS)));
  const rateRules = options.rateRules ?? RATE_RULES;
  const api = createApiServer(API_HANDLERS, new RateLimiter(rateRules, 'api'));
  made.push(api);
  const port = await listen(api, options.port ?? 3000, 'API server');
  const streaming = createStreamServer(
    MCP_STREAM_HANDLER,
    `localhost:${port}`,
    new RateLimiter(rateRules, 'mcp-stream'),
  );
  made.push(streaming);
  const streamPort = await listen(
    streaming,
    options.streamPort ?? (options.port === 0 ? 0 : port + 1),
    'MCP stream server',
  );
  return { api, streaming, port, streamPort };
}

/** The whole service on one machine: embedded DynamoDB, the table, and the API on the same handlers. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const dataDir = options.dataDir ?? '.data';
  const tableName = options.tableName ?? 'content';
  const dynamo = await startEmbeddedDynamo(options, dataDir);
  const servers: Server[] = [];
  try {
    await prepareHandlers(options, dataDir, dynamo, tableName);
    const { demo, demoCreated } = await demoSiteOf(options, dataDir, dynamo, tableName);
    const queues = startQueues(options, dataDir);
    const drain = async () => {
      const all = Object.values(queues);
      while (!all.every((q) => q.isIdle())) await Promise.all(all.map((q) => q.idle()));
    };
    const schedules = startSchedules(options);
    const { api, streaming, port, streamPort } = await startServers(options, servers);
    // Everything is wired: what the last run left on the queues is delivered, and what it left leased is swept.
    for (const queue of Object.values(queues)) queue.restore();
    await schedules.sweep();
    return {
      url: `http://localhost:${port}`,
      mcpStreamUrl: `http://localhost:${streamPort}`,
      dynamo,
      tableName,
      demo,
      demoCreated,
      queues,
      drain,
      runSchedule: schedules.runSchedule,
      sweep: schedules.sweep,
      sweepPageSchedules: schedules.sweepPageSchedules,
      stop: async () => {
        schedules.stop();
        const closed = [api, streaming].map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
        // A stream still open (a call waiting for the user's answer) would keep the close waiting.
        streaming.closeAllConnections();
        await Promise.all(closed);
        api.closeAllConnections();
        await drain();
        for (const queue of Object.values(queues)) queue.stop();
        setQueueTransport(undefined);
        setFunctionInvoker(undefined);
        await dynamo.close();
      },
    };
  } catch (error) {
    for (const server of servers) server.close();
    await dynamo.close();
    throw error;
  }
}
