import type { Enqueue, QueueMessages } from '@cm/contract';
import { MonitorMessage, RelinkMessage, ResearchMessage } from '@cm/contract';

/*
 * A queue's messages are typed by the queue: a sender cannot put another queue's message on it. The
 * @ts-expect-error lines are errors the typecheck (part of npm test) must report.
 */

it('types each message by its queue, as its worker parses it', async () => {
  const sent: Array<[string, unknown]> = [];
  const enqueue: Enqueue = async (queue, message) => {
    sent.push([queue, message]);
  };
  await enqueue('research', { job_id: 'job_1' });
  // @ts-expect-error a research message names its job, not a page
  await enqueue('research', { site_id: 1, type: 'article', id: 'art_1' });
  // @ts-expect-error relink has no job_id
  await enqueue('relink', { job_id: 'job_1' });
  expect(sent.map(([queue]) => queue)).toEqual(['research', 'research', 'relink']);

  // What a sender may send is what the worker's schema reads.
  const research: QueueMessages['research'] = { job_id: 'job_1' };
  expect(ResearchMessage.safeParse(research).success).toBe(true);
  expect(RelinkMessage.safeParse(research).success).toBe(false);
  expect(MonitorMessage.safeParse(research).success).toBe(false);
});
