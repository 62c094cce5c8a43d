import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUES, type WorkerName } from '@cm/contract';
import { logger } from '@cm/runtime';
import { lambdaContext } from './context';
import { decodeJournalLine, type Chain, type JournalEntry, type SentMessage } from './queue.decoder';

export type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/** Overrides of the worker's {@link QUEUES}, and the local retry wait. */
export interface QueueOptions {
  /** Records per invocation, as an SQS event source's batch size. */
  batchSize?: number;
  /** Deliveries before a message moves to the dead-letter list (the redrive policy's maxReceiveCount). */
  maxReceiveCount?: number;
  /** Wait before a failed message is delivered again (the visibility timeout, shortened). */
  retryDelayMs?: number;
  /** Worker invocations at once (the event source's maximum concurrency); the rest wait in the queue. */
  maxConcurrency?: number;
  /** A file that keeps the queue's pending messages, so a restart delivers them (as SQS keeps them); none in memory. */
  journal?: string;
}

interface Message extends SentMessage {
  receiveCount: number;
}

/**
 * Lambda's recursive loop detection: a function invoked more than this many times in one chain of
 * requests is not invoked again; the event goes to the dead-letter queue.
 */
export const RECURSIVE_LOOP_LIMIT = 16;
/** What the queue logs when it stops a delivery, as Lambda's recursive loop detection does. */
export const RECURSIVE_LOOP_STOPPED =
  'Lambda stopped a recursive loop: the function would be invoked more than 16 times in one chain of requests';

/**
 * The chain of the invocation running now, as Lambda passes the trace header on: a message a worker
 * sends while it handles a batch belongs to that batch's chain. Outside any worker (an API function,
 * a schedule, a test) a message starts a chain of its own.
 */
const currentChain = new AsyncLocalStorage<Chain>();

const newChain = (): Chain => ({ id: randomUUID(), invocations: {} });

/** Done lines the journal takes before it is rewritten to its pending messages alone. */
const JOURNAL_COMPACT_AFTER = 1_000;

/**
 * A queue's pending messages on disk: one JSON line per message sent and per message done with,
 * appended before `send` resolves, so a process killed at any point loses no accepted message. A
 * restart delivers what was sent and not done, handled or not (as SQS does once a visibility timeout
 * passes), with the number of times each was handed to the worker, so a message that kills the
 * process still reaches the dead-letter list; a line a crash tore is skipped.
 */
class Journal {
  private readonly pending = new Map<string, Message>();
  private done = 0;

  constructor(private readonly file: string) {
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const entry = decodeJournalLine(line);
        if (!entry) continue;
        if ('done' in entry) this.pending.delete(entry.done);
        else if ('received' in entry) {
          const message = this.pending.get(entry.received);
          if (message) message.receiveCount++;
        } else this.pending.set(entry.message.messageId, { ...entry.message, receiveCount: 0 });
      }
    }
    this.compact();
  }

  /** What was sent and not done with, oldest first, each with its receive count. */
  messages(): Message[] {
    return [...this.pending.values()].map((message) => ({ ...message }));
  }

  sent(message: Message): void {
    const { receiveCount: _count, ...kept } = message;
    this.pending.set(message.messageId, { ...kept, receiveCount: 0 });
    appendFileSync(this.file, `${JSON.stringify({ message: kept } satisfies JournalEntry)}\n`);
  }

  /** The messages are handed to the worker (once more each). */
  received(messageIds: readonly string[]): void {
    for (const id of messageIds) {
      const message = this.pending.get(id);
      if (message) message.receiveCount++;
    }
    appendFileSync(
      this.file,
      messageIds.map((id) => `${JSON.stringify({ received: id } satisfies JournalEntry)}\n`).join(''),
    );
  }

  finished(messageId: string): void {
    this.pending.delete(messageId);
    appendFileSync(this.file, `${JSON.stringify({ done: messageId } satisfies JournalEntry)}\n`);
    if (++this.done >= JOURNAL_COMPACT_AFTER) this.compact();
  }

  /** Rewrites the file to the pending messages alone (a new file renamed over the old one). */
  private compact(): void {
    const lines = [...this.pending.values()].flatMap(({ receiveCount, ...message }) => [
      `${JSON.stringify({ message } satisfies JournalEntry)}\n`,
      ...Array.from(
        { length: receiveCount },
        () => `${JSON.stringify({ received: message.messageId } satisfies JournalEntry)}\n`,
      ),
    ]);
    writeFileSync(`${this.file}.tmp`, lines.join(''));
    renameSync(`${this.file}.tmp`, this.file);
    this.done = 0;
  }
}

export interface DeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  /** Set when Lambda's recursive loop detection stopped its delivery, rather than the worker failing it. */
  stoppedLoop?: true;
}

/**
 * SQS on one machine: messages are delivered as real `SQSEvent` records to the worker's handler,
 * in batches; the records it reports in `batchItemFailures` (or all, when it throws) are delivered
 * again, and after `maxReceiveCount` deliveries they move to `deadLetters`. Batch size, deliveries
 * and the worker's time limit are the worker's queue settings on AWS unless `options` say otherwise.
 * With a journal, pending messages outlive the process: `restore()` delivers those of the last run.
 */
export class InProcessQueue {
  readonly deadLetters: DeadLetter[] = [];
  /** Messages sent to this queue so far. */
  sent = 0;
  /** Deliveries Lambda's recursive loop detection stopped (its `RecursiveInvocationsDropped` metric). */
  recursiveInvocationsDropped = 0;
  /** The most worker invocations that ran at once. */
  peakConcurrency = 0;
  /** Worker invocations so far (a batch is one), and the milliseconds they took: what Lambda bills the worker for. */
  invocations = 0;
  invokedMs = 0;
  /** Deliveries the worker failed (each is delivered again, or dead-lettered). */
  failedDeliveries = 0;
  /** Worker invocations under way now (what `pause()` keeps back has not begun one). */
  inFlight = 0;
  private readonly ready: Message[] = [];
  private delayed = 0;
  private waiting: (() => void)[] = [];
  private stopped = false;
  private paused = false;
  private readonly batchSize: number;
  private readonly maxReceiveCount: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly maxConcurrency: number;
  private readonly journal: Journal | undefined;

  constructor(
    readonly name: WorkerName,
    private readonly handler: WorkerHandler,
    options: QueueOptions = {},
  ) {
    const settings = QUEUES[name];
    this.batchSize = options.batchSize ?? settings.batchSize;
    this.maxReceiveCount = options.maxReceiveCount ?? settings.maxReceiveCount;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.timeoutMs = settings.timeoutSeconds * 1000;
    this.maxConcurrency = options.maxConcurrency ?? settings.maxConcurrency;
    this.journal = options.journal === undefined ? undefined : new Journal(options.journal);
  }

  /** Queues a message, first delivered after `delayMs` (SQS's DelaySeconds). */
  async send(body: string, delayMs = 0): Promise<void> {
    if (this.stopped) throw new Error(`queue ${this.name} is stopped`);
    this.sent++;
    const now = Date.now();
    const message: Message = {
      messageId: randomUUID(),
      body,
      receiveCount: 0,
      sentAt: now,
      dueAt: now + delayMs,
      chain: currentChain.getStore() ?? newChain(),
    };
    this.journal?.sent(message);
    this.schedule(message);
  }

  /**
   * Sends every dead letter back to this queue, as SQS's `start-message-move-task` does
   * (docs/runbook.md#dead-letter-queues): each is a new message, delivered from its first attempt. The
   * number moved.
   */
  redrive(): number {
    const letters = this.deadLetters.splice(0);
    for (const letter of letters) void this.send(letter.body);
    return letters.length;
  }

  /** Delivers the messages the journal kept from the last run, each when its delay is over: once, after the workers are wired. */
  restore(): number {
    const kept = this.journal?.messages() ?? [];
    for (const message of kept) {
      // Handed to the worker as often as allowed, and the process died each time: it goes where SQS would put it.
      if (message.receiveCount >= this.maxReceiveCount) this.deadLetter(message);
      else this.schedule(message);
    }
    return kept.length;
  }

  private deadLetter(message: Message, stoppedLoop = false) {
    this.deadLetters.push({
      messageId: message.messageId,
      body: message.body,
      receiveCount: message.receiveCount,
      ...(stoppedLoop ? { stoppedLoop } : {}),
    });
    this.journal?.finished(message.messageId);
  }

  private schedule(message: Message) {
    const delayMs = message.dueAt - Date.now();
    if (delayMs > 0) return this.later(message, delayMs);
    this.ready.push(message);
    setImmediate(() => this.pump());
  }

  /** Resolves once no message is waiting, delayed or being handled. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stop(): void {
    this.stopped = true;
  }

  /** Keeps every delivery back until `resume()`, as a worker that cannot run yet: what was sent waits, in order (and `idle()` with it). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  isIdle(): boolean {
    return this.ready.length === 0 && this.inFlight === 0 && this.delayed === 0;
  }

  private pump() {
    while (this.ready.length > 0 && !this.stopped && !this.paused && this.inFlight < this.maxConcurrency) {
      const batch = this.ready.splice(0, this.batchSize);
      this.inFlight++;
      this.peakConcurrency = Math.max(this.peakConcurrency, this.inFlight);
      void this.deliver(batch).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.isIdle()) for (const resolve of this.waiting.splice(0)) resolve();
      });
    }
  }

  /**
   * The messages whose chain has invoked this worker {@link RECURSIVE_LOOP_LIMIT} times already are
   * not delivered: they go to the dead-letter list, logged and counted, as Lambda stops them. The
   * rest are one invocation, whose chain is theirs with this worker invoked once more (a batch of
   * several chains carries the longest count of each function, so no loop hides in a batch).
   */
  private admit(batch: Message[]): { deliver: Message[]; chain: Chain } {
    const fn = this.functionName();
    const deliver: Message[] = [];
    const chain: Chain = { id: '', invocations: {} };
    for (const message of batch) {
      const { id, invocations } = message.chain ?? newChain();
      const count = (invocations[fn] ?? 0) + 1;
      if (count > RECURSIVE_LOOP_LIMIT) {
        this.recursiveInvocationsDropped++;
        logger.error(RECURSIVE_LOOP_STOPPED, {
          function_name: fn,
          queue: this.name,
          message_id: message.messageId,
          trace_id: id,
          invocations: count,
        });
        this.deadLetter(message, true);
        continue;
      }
      deliver.push(message);
      chain.id ||= id;
      for (const [name, n] of Object.entries({ ...invocations, [fn]: count }))
        chain.invocations[name] = Math.max(chain.invocations[name] ?? 0, n);
    }
    return { deliver, chain };
  }

  private functionName(): string {
    return `${this.name}-worker`;
  }

  private async deliver(messages: Message[]) {
    const { deliver: batch, chain } = this.admit(messages);
    if (batch.length === 0) return;
    for (const message of batch) message.receiveCount++;
    this.journal?.received(batch.map((m) => m.messageId));
    let failed: Set<string>;
    this.invocations++;
    const started = performance.now();
    try {
      const response = await currentChain.run(chain, () =>
        this.handler({ Records: batch.map((m) => this.record(m)) }, lambdaContext(this.functionName(), this.timeoutMs)),
      );
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      logger.error(`queue ${this.name}: the worker failed the whole batch`, { error });
      failed = new Set(batch.map((m) => m.messageId));
    }
    this.invokedMs += performance.now() - started;
    this.failedDeliveries += failed.size;
    for (const message of batch) {
      if (!failed.has(message.messageId)) {
        this.journal?.finished(message.messageId);
        continue;
      }
      if (message.receiveCount >= this.maxReceiveCount) {
        this.deadLetter(message);
        continue;
      }
      this.later(message, this.retryDelayMs);
    }
  }

  private later(message: Message, delayMs: number) {
    this.delayed++;
    setTimeout(() => {
      this.delayed--;
      this.ready.push(message);
      this.pump();
    }, delayMs);
  }

  private record(message: Message): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: `${message.messageId}#${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
        ...(message.chain ? { AWSTraceHeader: `Root=${message.chain.id}` } : {}),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.name}`,
      awsRegion: 'local',
    };
  }
}
