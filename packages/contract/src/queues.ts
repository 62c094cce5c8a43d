import type { WorkerName } from './functions';
import type { RelinkMessage, RelinkPagesMessage } from './notify';
import type { MonitorMessage, MonitorPlanMessage, ResearchMessage } from './research';
import type { RankCollectMessage, RankMessage } from './ranks';
import type { BudgetWarning } from './budget';

/** Each worker's queue message, by worker name: what a sender may put on the queue, and what its worker reads. */
export interface QueueMessages {
  relink: RelinkMessage;
  'relink-pages': RelinkPagesMessage;
  research: ResearchMessage;
  monitor: MonitorMessage;
  'monitor-plan': MonitorPlanMessage;
  rank: RankMessage;
  'rank-collect': RankCollectMessage;
  'budget-warning': BudgetWarning;
}
/** Puts a message on a worker's queue, typed by the queue (a worker without a message fails to compile here). */
export type Enqueue = <Q extends WorkerName>(
  queue: Q,
  message: QueueMessages[Q],
  delaySeconds?: number,
) => Promise<void>;

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

/**
 * Each worker's queue. A relink is planned in one invocation, and its batches of 100 linking pages are
 * small, a few at a time (each makes 10 writes at once); a research job is slow (web research takes 30
 * to 60 s, and its place under the cap is leased just past the worker's time limit) and runs alone, at
 * most 10 at once, the cap (every job on the queue has a place); a site's monitoring run composes its
 * snapshots from the shared daily numbers (a trend or detail call for a domain now and then), and runs
 * alone, 10 at once (inside DataForSEO's 2,000 calls a minute); a monitoring plan pays its block's daily
 * numbers (about 1,100 claims and up to 11 bulk batches of three requests, a bulk answer taking up to
 * about 10 s) and sends the block's messages (and its rank checks), so it has 5 minutes. A
 * site's rank checks post their SERP tasks (up to 100 a post), 10 sites at once; collecting them reads
 * each task once it is ready (a task not ready yet fails the message, which SQS delivers again after its
 * visibility timeout, up to 8 times, about 48 minutes), 2 at once, so its reads stay well inside
 * DataForSEO's 2,000 calls a minute beside monitoring's.
 */
export const QUEUE_SETTINGS: Record<WorkerName, QueueSettings> = {
  relink: { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 60, maxConcurrency: 5 },
  'relink-pages': { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 60, maxConcurrency: 5 },
  research: { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 150, maxConcurrency: 10 },
  monitor: { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 120, maxConcurrency: 10 },
  'monitor-plan': { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 300, maxConcurrency: 3 },
  rank: { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 120, maxConcurrency: 10 },
  'rank-collect': { batchSize: 1, maxReceiveCount: 8, timeoutSeconds: 60, maxConcurrency: 2 },
  'budget-warning': { batchSize: 1, maxReceiveCount: 5, timeoutSeconds: 30, maxConcurrency: 5 },
};

/**
 * How long a research job is leased (its place under the cap, and the job itself) by default: just past
 * the research worker's time limit, so only a dead worker, or a message that was lost, lets it lapse.
 * A lapsed job ends `failed` with `lease_expired` and its place is freed (RESEARCH_LEASE_MS sets another).
 */
export const RESEARCH_LEASE_MS = (QUEUE_SETTINGS.research.timeoutSeconds + 10) * 1000;

/** How often the sweep looks for research jobs whose lease lapsed (an EventBridge rule on AWS, a timer locally). */
export const RESEARCH_SWEEP_MINUTES = 1;

/** How long SQS hides a message while a worker has it: six times the worker's time limit, as AWS advises for a Lambda event source. */
export const visibilityTimeoutSeconds = (worker: WorkerName): number => QUEUE_SETTINGS[worker].timeoutSeconds * 6;
