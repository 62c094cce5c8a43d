import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* Counter items: a daily quota's units used, and a semaphore's places taken with each owner's lease. */

const QuotaItem = z.looseObject({ used: z.optional(z.int()) });
/** `leases`: owner → when (epoch ms) its lease ends. */
const SemaphoreItem = z.looseObject({
  inflight: z.optional(z.int()),
  leases: z.optional(z.record(z.string(), z.number())),
});

type Item = Record<string, unknown>;

export const decodeQuota = (item: Item, key: Item) => decodeItem('quota', QuotaItem, item, key);
export const decodeSemaphore = (item: Item, key: Item) => decodeItem('semaphore', SemaphoreItem, item, key);
