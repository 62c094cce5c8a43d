import * as z from 'zod/mini';
import { binary, decodeItem } from './decode';

/* A part of a kept tool result: its bytes, and on every part what the whole is. */

const ResultPartItem = z.object({
  tool: z.string(),
  parts: z.int().check(z.minimum(1)),
  created_at: z.string(),
  expires_at: z.int(),
  body: binary,
});
export type ResultPart = z.output<typeof ResultPartItem>;

export const decodeResultPart = (item: Record<string, unknown>): ResultPart =>
  decodeItem('kept result part', ResultPartItem, item);
