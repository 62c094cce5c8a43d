import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { perWorker, RATE_RULES, RESEARCH_SWEEP_MINUTES, type RateRule, type WorkerName } from '@cm/contract';
import { buildDashboard } from '@cm/dashboard/build';
import { buildMcpApps } from '@cm/dashboard/mcp-apps';
import { cachedBuilds } from './builds';
import { logger, resetServices, setQueueTransport } from '@cm/runtime';
import { setFunctionInvoker } from '@cm/runtime/mcp';
import { createDocumentClient, createStore } from '@cm/store';
import type { ScheduleBudget } from '@cm/tools';
import { lambdaContext, scheduledEvent } from './context';
import { dynamoEngine, ensureTable, startDynamo, type DynamoEngine, type EmbeddedDynamo } from './dynamo';
import { API_HANDLERS, MCP_STREAM_HANDLER, WORKER_HANDLERS, monitorSchedule, researchSweep } from './handlers';
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
   * Run the monitoring schedule and the research sweep on their timers (default true). The benchmark
   * and the test stacks turn them off, so no DynamoDB request of theirs lands among the ones they time
   * or count; `runSchedule` and `sweep` still run them on demand.
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

/** The whole service on one machine: embedded DynamoDB, the table, and the API on the same handlers. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const dataDir = options.dataDir ?? '.data';
  const tableName = options.tableName ?? 'content';
  const engine = options.engine ?? dynamoEngine();
  const dynamoDir = join(dataDir, 'dynamodb');
  if (!options.memory) checkDataDirEngine(dataDir, engine);
  const dynamo = await startDynamo({
    engine,
    port: options.dynamoPort ?? 8000,
    path: options.memory ? undefined : dynamoDir,
  });
  let server: Server | undefined;
  let streamServer: Server | undefined;
  try {
    await ensureTable(dynamo.endpoint, tableName);
    // The dashboard's app and the MCP Apps' HTML, built as the dashboard and mcp functions' bundling builds
    // them; the dashboard's handler reads its folder, and the mcp function an App's file when asked for it.
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
    resetServices();

    let demo: DemoSite | null = null;
    let demoCreated = false;
    if (options.demoSite) {
      const demoFile = join(dataDir, 'demo-site.json');
      if (!options.memory && existsSync(demoFile)) demo = decodeDemoSite(demoFile, readFileSync(demoFile, 'utf8'));
      else {
        const store = createStore(createDocumentClient({ endpoint: dynamo.endpoint }), tableName);
        const created = await store.sites.create({ name: 'Demo site', domain: 'demo.example.com', locale: 'US/en' });
        demo = { site_id: created.site.site_id, api_key: created.api_key };
        demoCreated = true;
        if (!options.memory) writeFileSync(demoFile, `${JSON.stringify(demo)}\n`, { mode: 0o600 });
      }
    }

    // On disk, each queue keeps its pending messages, so a restart delivers what a stopped or killed process left.
    if (!options.memory) mkdirSync(join(dataDir, 'queues'), { recursive: true });
    const queueOptions = (name: WorkerName): QueueOptions => ({
      ...options.queues,
      ...(options.memory ? {} : { journal: join(dataDir, 'queues', `${name}.jsonl`) }),
    });
    const inProcess = (name: WorkerName) => new InProcessQueue(name, WORKER_HANDLERS[name], queueOptions(name));
    // In WORKERS order, the order they restore and drain in.
    const queues = perWorker(inProcess);
    setQueueTransport({ send: (queue, body, delaySeconds) => queues[queue].send(body, (delaySeconds ?? 0) * 1000) });
    const drain = async () => {
      const all = Object.values(queues);
      while (!all.every((q) => q.isIdle())) await Promise.all(all.map((q) => q.idle()));
    };

    const runSchedule = (at = new Date()) =>
      monitorSchedule(scheduledEvent(at), lambdaContext('monitor-schedule', SCHEDULE_TIMEOUT_MS));
    // The daily monitoring schedule, as EventBridge runs it on AWS; unref'd so it never keeps the process up.
    const timers = options.schedules ?? true;
    const schedule = timers
      ? setInterval(
          () => void runSchedule().catch((error: unknown) => logger.error('monitoring schedule failed', { error })),
          MONITOR_EVERY_MS,
        )
      : undefined;
    schedule?.unref();
    // The research sweep, as its EventBridge rule runs it on AWS.
    const sweep = async () =>
      researchSweep(scheduledEvent(new Date()), lambdaContext('research-sweep', SCHEDULE_TIMEOUT_MS));
    const sweeper = timers
      ? setInterval(
          () => void sweep().catch((error: unknown) => logger.error('research sweep failed', { error })),
          RESEARCH_SWEEP_MINUTES * 60_000,
        )
      : undefined;
    sweeper?.unref();

    // The mcp function runs each tool's own function, here in-process as Lambda Invoke does on AWS.
    setFunctionInvoker((fn, event) => API_HANDLERS[fn](event, lambdaContext(fn, ROUTE_TIMEOUT_MS)));
    const rateRules = options.rateRules ?? RATE_RULES;
    server = createApiServer(API_HANDLERS, new RateLimiter(rateRules, 'api'));
    const port = await listen(server, options.port ?? 3000, 'API server');
    const api = server;
    streamServer = createStreamServer(
      MCP_STREAM_HANDLER,
      `localhost:${port}`,
      new RateLimiter(rateRules, 'mcp-stream'),
    );
    // Beside the API's port: the next one, or a free one too.
    const streamPort = await listen(
      streamServer,
      options.streamPort ?? (options.port === 0 ? 0 : port + 1),
      'MCP stream server',
    );
    const streaming = streamServer;
    // Everything is wired: what the last run left on the queues is delivered, and what it left leased is swept.
    for (const queue of Object.values(queues)) queue.restore();
    await sweep();
    return {
      url: `http://localhost:${port}`,
      mcpStreamUrl: `http://localhost:${streamPort}`,
      dynamo,
      tableName,
      demo,
      demoCreated,
      queues,
      drain,
      runSchedule,
      sweep,
      stop: async () => {
        clearInterval(schedule);
        clearInterval(sweeper);
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
    server?.close();
    streamServer?.close();
    await dynamo.close();
    throw error;
  }
}
