import type { FunctionGrants } from './grants';
import type { RelinkMessage, RelinkPagesMessage } from './notify';
import type { MonitorMessage, MonitorPlanMessage, ResearchMessage } from './research';
import type { RankCollectMessage, RankMessage } from './ranks';
import type { BudgetWarning } from './budget';
import type { IndexNowMessage } from './indexnow';
import type { SearchConsoleMessage } from './search-console';

/*
 * Each queue and its worker, declared once: its message type, how it delivers, what its worker may do,
 * and its memory where it is not the workers' default. Every function bundles this file (the runtime's
 * config reads the research lease from it), so the messages are named by type only: their schemas stay
 * in the workers that parse them.
 */

/** How a worker's queue delivers: the same on SQS (the CDK app) and in the local stack's in-process queues. */
export interface QueueSettings {
  /** Messages per worker invocation: the SQS event source's batch size. */
  batchSize: number;
  /** Deliveries before a message moves to the dead-letter queue: the redrive policy's maxReceiveCount. */
  maxReceiveCount: number;
  /** The worker's time limit, in seconds. */
  timeoutSeconds: number;
  /**
   * Worker invocations the queue's event source runs at once (its maximum concurrency, 2 to 1,000):
   * messages beyond them wait in the queue, costing nothing.
   */
  maxConcurrency: number;
}

/** The message type a declaration carries: a type only, no value. */
declare const message: unique symbol;

/**
 * A queue and its worker: `M` is the message a sender may put on the queue, and what its worker reads;
 * `Q` the queues the worker sends to (checked against the declared ones where the grants are read).
 */
export interface QueueDeclaration<M, Q extends string> extends QueueSettings {
  /** What the worker's function may do: no more than its work needs. */
  grants: FunctionGrants<Q>;
  /** The worker's memory in MB, where it differs from the workers' default (infra/memory.ts). */
  memoryMb?: number;
  readonly [message]?: M;
}

/**
 * A queue carrying `M` (given), its settings and grants as written (inferred, with the names of the
 * queues it sends to kept literal, as the worker names are not known before this declaration).
 */
const queue =
  <M>() =>
  <const Q extends string = never>(declaration: Omit<QueueDeclaration<M, Q>, typeof message>): QueueDeclaration<M, Q> =>
    declaration;

/** Every worker's settings, in the order the stacks make, restore and drain them. */
export const QUEUES = {
  // A relink is planned in one invocation; its linking pages go in batches to the relink-pages queue
  // (never back to its own). Relinking rewrites page bodies (up to 100 a message), CPU on each.
  relink: queue<RelinkMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 60,
    maxConcurrency: 5,
    grants: { table: 'readWrite', sendsTo: ['relink-pages'] },
    memoryMb: 512,
  }),
  // Its batches of 100 linking pages are small, a few at a time (each makes 10 writes at once).
  'relink-pages': queue<RelinkPagesMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 60,
    maxConcurrency: 5,
    grants: { table: 'readWrite' },
    memoryMb: 512,
  }),
  // A research job is slow (web research takes 30 to 60 s, and its place under the cap is leased just
  // past the worker's time limit) and runs alone, at most 10 at once, the cap (every job on the queue
  // has a place). A job that ends hands its place to the job waiting longest, and queues it. The
  // readable text of the largest page url mode reads (2 MB of markup) peaks at about 300-350 MB RSS and
  // takes 2-15 s of one core (the spread is the machine's load): at one whole vCPU (1,769 MB) it stays far
  // inside the time limit, at 512 MB it would near the memory and take three and a half times as long.
  research: queue<ResearchMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 150,
    maxConcurrency: 10,
    grants: { table: 'readWrite', sendsTo: ['research', 'budget-warning'] },
    memoryMb: 1769,
  }),
  // A site's monitoring run composes its snapshots from the shared daily numbers (a trend or detail
  // call for a domain now and then), and runs alone, 10 at once (inside DataForSEO's 2,000 calls a
  // minute). It claims each domain's run, then writes its snapshots and ledger lines.
  monitor: queue<MonitorMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 120,
    maxConcurrency: 10,
    grants: { table: 'readWrite', sendsTo: ['budget-warning'], secrets: ['dataforseo'] },
  }),
  // A monitoring plan reads a block of sites (BatchGetItem) and their competitors, pays its block's
  // daily numbers (about 1,100 claims and up to 11 bulk batches of three requests, a bulk answer taking
  // up to about 10 s: shared items, the paying sites' ledger lines and budgets) and sends the block's
  // monitoring messages and rank checks, so it has 5 minutes.
  'monitor-plan': queue<MonitorPlanMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 300,
    maxConcurrency: 3,
    grants: {
      table: 'readWrite',
      sendsTo: ['monitor', 'rank', 'search-console', 'budget-warning'],
      secrets: ['dataforseo'],
    },
  }),
  // A site's rank checks are claimed and post their SERP tasks (up to 100 a post, their ledger lines),
  // 10 sites at once, and queue their collection.
  rank: queue<RankMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 120,
    maxConcurrency: 10,
    grants: { table: 'readWrite', sendsTo: ['rank-collect', 'budget-warning'], secrets: ['dataforseo'] },
  }),
  // Collecting reads each task once it is ready (a task not ready yet fails the message, which SQS
  // delivers again after its visibility timeout, up to 8 times, about 48 minutes), 2 at once, so its
  // reads stay well inside DataForSEO's 2,000 calls a minute beside monitoring's. It writes the site's
  // rank rows (and today's SERP rows), and queues the site's run again when another site's run gave
  // back a check the site awaited.
  'rank-collect': queue<RankCollectMessage>()({
    batchSize: 1,
    maxReceiveCount: 8,
    timeoutSeconds: 60,
    maxConcurrency: 2,
    grants: { table: 'readWrite', sendsTo: ['rank'], secrets: ['dataforseo'] },
  }),
  // A site's budget warnings, POSTed to the webhook it set: read now (it may have changed since the
  // warning was queued).
  'budget-warning': queue<BudgetWarning>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 30,
    maxConcurrency: 5,
    grants: { table: 'read' },
  }),
  // A site's changed URLs, sent to IndexNow a debounce window after the first (one request per 10,000).
  // An answer worth retrying (429, 5xx) fails the message after a few quick tries: SQS delivers it again
  // after its visibility timeout, up to 8 times (about 48 minutes). Sent URLs are deleted one by one
  // (DeleteItem, on the condition that they did not change while being sent).
  indexnow: queue<IndexNowMessage>()({
    batchSize: 1,
    maxReceiveCount: 8,
    timeoutSeconds: 60,
    maxConcurrency: 5,
    grants: { table: 'readWriteDelete' },
  }),
  // A site's Search Console day: its rows read page after page (25,000 each), one item written. At most
  // 5 at once, each query held 250 ms at least: 1,200 a minute, the one service account's per-user
  // quota (docs/api/search-console.md#quotas). It sends nothing: the first day read after a refusal
  // marks the connection, and the next daily plan queues the 56 days again.
  'search-console': queue<SearchConsoleMessage>()({
    batchSize: 1,
    maxReceiveCount: 5,
    timeoutSeconds: 120,
    maxConcurrency: 5,
    grants: { table: 'readWrite' },
  }),
};

/** Queue workers: a Lambda each, fed by its own SQS queue (with a dead-letter queue). */
export type WorkerName = keyof typeof QUEUES;

const isWorker = (name: string): name is WorkerName => Object.hasOwn(QUEUES, name);

/** Every worker, in {@link QUEUES} order. */
export const WORKERS: readonly WorkerName[] = Object.keys(QUEUES).filter(isWorker);

/** A value per worker, made from its name, in {@link WORKERS} order. */
export const perWorker = <V>(make: (worker: WorkerName) => V): Record<WorkerName, V> =>
  Object.fromEntries(WORKERS.map((worker) => [worker, make(worker)])) as Record<WorkerName, V>;

/** Each worker's queue message, by worker name: what a sender may put on the queue, and what its worker reads. */
export type QueueMessages = {
  [W in WorkerName]: (typeof QUEUES)[W] extends QueueDeclaration<infer M, string> ? M : never;
};

/** Puts a message on a worker's queue, typed by the queue (a worker without a message fails to compile here). */
export type Enqueue = <Q extends WorkerName>(
  queue: Q,
  message: QueueMessages[Q],
  delaySeconds?: number,
) => Promise<void>;

/**
 * How long a research job is leased (its place under the cap, and the job itself) by default: just past
 * the research worker's time limit, so only a dead worker, or a message that was lost, lets it lapse.
 * A lapsed job ends `failed` with `lease_expired` and its place is freed (RESEARCH_LEASE_MS sets another).
 */
export const RESEARCH_LEASE_MS = (QUEUES.research.timeoutSeconds + 10) * 1000;

/** How often the sweep looks for research jobs whose lease lapsed (an EventBridge rule on AWS, a timer locally). */
export const RESEARCH_SWEEP_MINUTES = 1;

/** How often the pages' scheduled changes due are applied (an EventBridge rule on AWS, a timer locally): within a minute of their time. */
export const PAGE_SCHEDULE_MINUTES = 1;

/** How long SQS hides a message while a worker has it: six times the worker's time limit, as AWS advises for a Lambda event source. */
export const visibilityTimeoutSeconds = (worker: WorkerName): number => QUEUES[worker].timeoutSeconds * 6;
