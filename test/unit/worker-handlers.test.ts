import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKERS } from '@cm/contract';

/*
 * A worker's handler is wiring: the queue's name and schema, its workflow's dependencies, and the
 * workflow (its logic, and what it reports, are the workflow's, in packages/tools or packages/publishing).
 */
const source = (worker: string) =>
  readFileSync(join(__dirname, '../../functions', `${worker}-worker`, 'handler.ts'), 'utf8');

it.each(WORKERS)('%s: its handler is at most 20 lines, a worker of its own queue', (worker) => {
  const text = source(worker);
  expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(20);
  expect(text).toContain(`sqsWorker('${worker}', `);
});
