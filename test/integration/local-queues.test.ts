import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { QUEUES, WORKERS } from '@cm/contract';
import { InProcessQueue, RECURSIVE_LOOP_LIMIT, RECURSIVE_LOOP_STOPPED } from '@cm/local';
import { startTestStack, type TestStack } from '../helpers/local';
import { captureOutput } from '../helpers/output';
import { given } from '../helpers/client';

/* The local stack's queues deliver as the queues on AWS do: the settings the CDK app reads are theirs too. */

describe("the local stack's queues", () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t.stop());

  it.each(WORKERS)(
    '%s: hands its worker batches of the shared batch size, and dead-letters a message after exactly the shared deliveries',
    async (worker) => {
      const { batchSize, maxReceiveCount } = QUEUES[worker];
      const queue = t.stack.queues[worker];
      const count = 2 * batchSize + 1;
      const output = captureOutput({ level: 'ERROR' });
      try {
        // Not JSON: every worker fails it on every delivery.
        for (let i = 0; i < count; i++) await queue.send('{nope');
        await t.stack.drain();
      } finally {
        output.stop();
      }
      expect(queue.deadLetters).toHaveLength(count);
      for (const letter of queue.deadLetters) expect(letter.receiveCount).toBe(maxReceiveCount);
      const failures = output.logs('message failed; SQS delivers it again, or moves it to the dead-letter queue');
      expect(failures).toHaveLength(count * maxReceiveCount);
      // The first deliveries, by invocation: full batches, then the one left over.
      const firstBatches = new Map<string, number>();
      for (const line of failures.filter((l) => l.receive_count === 1))
        firstBatches.set(line.function_request_id, (firstBatches.get(line.function_request_id) ?? 0) + 1);
      expect([...firstBatches.values()].sort((a, b) => b - a)).toEqual([batchSize, batchSize, 1]);
      queue.deadLetters.length = 0;
    },
  );
});

describe('InProcessQueue', () => {
  /** A worker that records each batch's size and time limit, and fails the messages whose body is `fail`. */
  function recorder() {
    const batches: number[] = [];
    const timeLimitsMs: number[] = [];
    const handler = async (
      event: SQSEvent,
      context: { getRemainingTimeInMillis(): number },
    ): Promise<SQSBatchResponse> => {
      batches.push(event.Records.length);
      timeLimitsMs.push(context.getRemainingTimeInMillis());
      return {
        batchItemFailures: event.Records.filter((r) => r.body === 'fail').map((r) => ({ itemIdentifier: r.messageId })),
      };
    };
    return { batches, timeLimitsMs, handler };
  }

  it.each(WORKERS)('%s: gives its worker the shared time limit', async (worker) => {
    const { timeLimitsMs, handler } = recorder();
    const queue = new InProcessQueue(worker, handler);
    await queue.send('ok');
    await queue.idle();
    const limitMs = QUEUES[worker].timeoutSeconds * 1000;
    expect(timeLimitsMs).toEqual([expect.any(Number)]);
    expect(timeLimitsMs[0]).toBeLessThanOrEqual(limitMs);
    expect(timeLimitsMs[0]).toBeGreaterThan(limitMs - 1000);
  });

  it('takes other settings when asked (tests may)', async () => {
    const { batches, handler } = recorder();
    const queue = new InProcessQueue('relink', handler, { batchSize: 2, maxReceiveCount: 2, retryDelayMs: 1 });
    for (const body of ['fail', 'ok', 'ok']) await queue.send(body);
    await queue.idle();
    expect(batches).toEqual([2, 1, 1]);
    expect(queue.deadLetters).toEqual([{ messageId: expect.any(String), body: 'fail', receiveCount: 2 }]);
  });

  it('keeps pending messages in its journal: a new queue on the same file delivers what the last one did not finish, and nothing it did', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'cm-queue-')), 'relink.jsonl');
    const received = () => {
      const bodies: string[] = [];
      const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
        bodies.push(...event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      };
      return { bodies, handler };
    };
    try {
      const handled = received();
      const first = new InProcessQueue('relink', handled.handler, { journal });
      await first.send('done');
      await first.idle();
      expect(handled.bodies).toEqual(['done']);

      // The process dies with one message in its worker's hands and one still delayed.
      const dying = new InProcessQueue('relink', () => new Promise<never>(() => undefined), { journal });
      expect(dying.restore()).toBe(0);
      await dying.send('in flight');
      await dying.send('delayed', 2_000); // still delayed at the restart, however slow the machine
      dying.stop();

      const after = received();
      const restarted = new InProcessQueue('relink', after.handler, { journal, retryDelayMs: 1 });
      expect(restarted.restore()).toBe(2);
      await new Promise((resolve) => setImmediate(resolve));
      // The delayed one keeps its delay; the other is delivered at once.
      expect(after.bodies).toEqual(['in flight']);
      await restarted.idle();
      expect(after.bodies).toEqual(['in flight', 'delayed']);
      // Handled now: the next start has nothing to deliver.
      expect(new InProcessQueue('relink', after.handler, { journal }).restore()).toBe(0);
    } finally {
      rmSync(dirname(journal), { recursive: true, force: true });
    }
  });
  it('counts deliveries across restarts: a message that kills the process each time ends in the dead-letter list, not in a loop', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'cm-queue-')), 'monitor.jsonl');
    const handed: number[] = [];
    // A worker that never returns: the process dies while the message is in its hands.
    const dies = (event: SQSEvent) => {
      handed.push(Number(given(event.Records[0], 'the event.Records[0]').attributes.ApproximateReceiveCount));
      return new Promise<never>(() => undefined);
    };
    try {
      const first = new InProcessQueue('monitor', dies, { journal, maxReceiveCount: 3 });
      await first.send('poison');
      await new Promise((resolve) => setImmediate(resolve));
      first.stop();
      for (let start = 0; start < 2; start++) {
        const again = new InProcessQueue('monitor', dies, { journal, maxReceiveCount: 3 });
        expect(again.restore()).toBe(1);
        await new Promise((resolve) => setImmediate(resolve));
        again.stop();
      }
      expect(handed).toEqual([1, 2, 3]);
      const last = new InProcessQueue('monitor', dies, { journal, maxReceiveCount: 3 });
      expect(last.restore()).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(handed).toEqual([1, 2, 3]);
      expect(last.deadLetters).toEqual([{ messageId: expect.any(String), body: 'poison', receiveCount: 3 }]);
      // Done with: the next start has nothing.
      expect(new InProcessQueue('monitor', dies, { journal }).restore()).toBe(0);
    } finally {
      rmSync(dirname(journal), { recursive: true, force: true });
    }
  });

  describe("Lambda's recursive loop detection", () => {
    it('stops a chain of self-sends at the 17th invocation of the worker: the message goes to the dead-letter list, logged and counted', async () => {
      let invocations = 0;
      const queue: InProcessQueue = new InProcessQueue('relink', async () => {
        invocations++;
        await queue.send('again');
      });
      const output = captureOutput({ level: 'ERROR' });
      try {
        await queue.send('first');
        await queue.idle();
      } finally {
        output.stop();
      }
      expect(invocations).toBe(RECURSIVE_LOOP_LIMIT);
      expect(queue.sent).toBe(RECURSIVE_LOOP_LIMIT + 1);
      expect(queue.recursiveInvocationsDropped).toBe(1);
      expect(queue.deadLetters).toEqual([
        { messageId: expect.any(String), body: 'again', receiveCount: 0, stoppedLoop: true },
      ]);
      expect(output.logs(RECURSIVE_LOOP_STOPPED)).toEqual([
        expect.objectContaining({ function_name: 'relink-worker', invocations: RECURSIVE_LOOP_LIMIT + 1 }),
      ]);
    });

    it('counts each function of a chain apart: a ping-pong between two workers stops when one of them reaches 17', async () => {
      const handled: string[] = [];
      const research: InProcessQueue = new InProcessQueue('research', async () => {
        handled.push('research');
        await relink.send('pong');
      });
      const relink: InProcessQueue = new InProcessQueue('relink', async () => {
        handled.push('relink');
        await research.send('ping');
      });
      const output = captureOutput({ level: 'ERROR' });
      try {
        await relink.send('serve');
        while (!relink.isIdle() || !research.isIdle()) await Promise.all([relink.idle(), research.idle()]);
      } finally {
        output.stop();
      }
      expect(handled.filter((w) => w === 'relink')).toHaveLength(RECURSIVE_LOOP_LIMIT);
      expect(handled.filter((w) => w === 'research')).toHaveLength(RECURSIVE_LOOP_LIMIT);
      expect(relink.recursiveInvocationsDropped).toBe(1);
      expect(research.recursiveInvocationsDropped).toBe(0);
    });

    it('lets a fan-out to another queue through, and starts a new chain for each message sent from outside a worker', async () => {
      let fannedOut = 0;
      const monitor = new InProcessQueue('monitor', async (event) => {
        fannedOut += event.Records.length;
      });
      const relink = new InProcessQueue('relink', async (event) => {
        for (const _record of event.Records) for (let i = 0; i < 50; i++) await monitor.send('one of many');
      });
      for (let i = 0; i < 2 * RECURSIVE_LOOP_LIMIT; i++) await relink.send('from outside');
      while (!relink.isIdle() || !monitor.isIdle()) await Promise.all([relink.idle(), monitor.idle()]);
      expect(fannedOut).toBe(2 * RECURSIVE_LOOP_LIMIT * 50);
      expect(relink.recursiveInvocationsDropped + monitor.recursiveInvocationsDropped).toBe(0);
      expect([...relink.deadLetters, ...monitor.deadLetters]).toEqual([]);
    });
  });

  it('runs at most its maximum concurrency of invocations at once; the other messages wait in the queue', async () => {
    const release: (() => void)[] = [];
    let handled = 0;
    const queue = new InProcessQueue(
      'research',
      (event) =>
        new Promise<void>((resolve) => {
          handled += event.Records.length;
          release.push(resolve);
        }),
      { maxConcurrency: 3 },
    );
    for (let i = 0; i < 7; i++) await queue.send('slow');
    const done = queue.idle();
    // Three invocations keep the worker busy; the other four wait until one ends.
    while (release.length < 3) await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toBe(3);
    while (handled < 7 || release.length > 0) {
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    expect(queue.peakConcurrency).toBe(3);
    expect(handled).toBe(7);
  });
});
