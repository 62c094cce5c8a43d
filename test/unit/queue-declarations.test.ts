import * as z from 'zod/mini';
import { QUEUES, RankCollectMessage, RankMessage, WORKERS, perWorker } from '@cm/contract';
import { sqsWorker } from '@cm/runtime';
import { DATAFORSEO_READERS, accessOf } from '../../infra/access';
import { FUNCTION_ENTRIES } from '../../infra/bundling';
import { ONE_VCPU_MB, memoryOf } from '../../infra/memory';

/*
 * A queue is one declaration (QUEUES): the worker list, the settings, the worker functions' grants and
 * memory are read from it. The @ts-expect-error lines are errors the typecheck (part of npm test) must report.
 */

const handle = async () => {};

it("types a worker's schema by its queue: its output must be the declared message, no more and no less", () => {
  expect(typeof sqsWorker('rank', RankMessage, handle)).toBe('function');
  // @ts-expect-error another queue's message
  sqsWorker('rank', RankCollectMessage, handle);
  // @ts-expect-error a field the senders do not send (the output is narrower than the message)
  sqsWorker('rank', z.extend(RankMessage, { extra: z.string() }), handle);
  // @ts-expect-error a required field left optional (the output is wider than the message)
  sqsWorker('rank', z.extend(RankMessage, { site_id: z.optional(z.number()) }), handle);
  // @ts-expect-error a queue that is not declared
  sqsWorker('ranks', RankMessage, handle);
});

it('lists the workers as the queues declare them, in their order', () => {
  expect(WORKERS).toEqual(Object.keys(QUEUES));
  expect(Object.keys(perWorker((worker) => worker))).toEqual(WORKERS);
  expect(FUNCTION_ENTRIES.filter((fn) => fn.endsWith('-worker'))).toEqual(WORKERS.map((w) => `${w}-worker`));
});

it("grants each worker's function what its queue declares, and its memory (256 MB unless declared)", () => {
  for (const worker of WORKERS) {
    const fn = `${worker}-worker` as const;
    const { grants, memoryMb } = QUEUES[worker];
    expect([fn, accessOf(fn)]).toEqual([fn, grants]);
    expect([fn, memoryOf(fn)]).toEqual([fn, memoryMb ?? 256]);
    expect([fn, DATAFORSEO_READERS.includes(fn)]).toEqual([fn, grants.secrets?.includes('dataforseo') ?? false]);
  }
  // The research worker reads pages' text: one whole vCPU.
  expect(memoryOf('research-worker')).toBe(ONE_VCPU_MB);
  expect(accessOf('relink-worker')).toEqual({ table: 'readWrite', sendsTo: ['relink-pages'] });
  expect(DATAFORSEO_READERS.filter((fn) => fn.endsWith('-worker'))).toEqual([
    'monitor-worker',
    'monitor-plan-worker',
    'rank-worker',
    'rank-collect-worker',
  ]);
});
