import * as z from 'zod/mini';

/* A line of a queue's journal (queue.ts), as a restart reads it back. */

/**
 * The chain of requests a message belongs to, as the X-Ray trace header (SQS's `AWSTraceHeader`) carries
 * it on AWS: the trace's id, and how many times each function was invoked along it so far.
 */
const Chain = z.object({ id: z.string(), invocations: z.record(z.string(), z.number()) });
export type Chain = z.infer<typeof Chain>;

/** A message as sent: what the journal keeps of it. */
const SentMessage = z.object({
  messageId: z.string(),
  body: z.string(),
  sentAt: z.number(),
  /** When it may first be delivered (epoch ms): its delay. */
  dueAt: z.number(),
  /** Absent in a journal written before chains were kept: such a message starts a chain of its own. */
  chain: z.optional(Chain),
});
export type SentMessage = z.infer<typeof SentMessage>;

/** A journal line: a message done with (handled, or moved to the dead-letter list), one handed to the worker, or one sent. */
const JournalEntry = z.union([
  z.object({ done: z.string() }),
  z.object({ received: z.string() }),
  z.object({ message: SentMessage }),
]);
export type JournalEntry = z.infer<typeof JournalEntry>;

/** A journal line's entry; null for a line a crash tore, or anything else that is no entry. */
export function decodeJournalLine(line: string): JournalEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = z.safeParse(JournalEntry, value);
  return parsed.success ? parsed.data : null;
}
