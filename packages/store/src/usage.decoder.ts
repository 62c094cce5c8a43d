import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* The usage ledger's items: one paid provider call, as a report reads it. */

const UsageLineItem = z.looseObject({
  tool: z.string(),
  provider: z.string(),
  cost_usd: z.number(),
  simulated: z.optional(z.boolean()),
  cached: z.optional(z.boolean()),
  pending: z.optional(z.boolean()),
  at: z.string(),
});

export const decodeUsageLine = (item: Record<string, unknown>) => decodeItem('usage line', UsageLineItem, item);
