import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A relink's progress: the batches its plan has (once planned) and the numbers of those done. */

const numberSet = z.custom<Set<number>>((value) => value instanceof Set && [...value].every(Number.isInteger));

const RelinkRunItem = z.looseObject({
  planned: z.optional(z.int()),
  done: z.optional(numberSet),
});

export const decodeRelinkRun = (item: Record<string, unknown>, key: Record<string, unknown>) =>
  decodeItem('relink run', RelinkRunItem, item, key);
