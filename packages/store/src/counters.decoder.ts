import * as z from 'zod/mini';
import { decodeItem, stringSet } from './decode';

/* Counter items: a daily quota's units used, and a semaphore's places taken with each owner's lease. */

const QuotaItem = z.looseObject({ used: z.optional(z.int()) });
/** `leases`: owner → when (epoch ms) its lease ends; `group#<name>`: the owners of a group's places. */
const SemaphoreItem = z.looseObject({
  inflight: z.optional(z.int()),
  leases: z.optional(z.record(z.string(), z.number())),
});
const GROUP_PREFIX = 'group#';
/** A semaphore item's attribute of a group's owners (a string set: it is gone once its last owner is). */
export const groupAttribute = (group: string) => `${GROUP_PREFIX}${group}`;

type Item = Record<string, unknown>;

export const decodeQuota = (item: Item, key: Item) => decodeItem('quota', QuotaItem, item, key);
export function decodeSemaphore(item: Item, key: Item) {
  const decoded = decodeItem('semaphore', SemaphoreItem, item, key);
  const groups: Record<string, string[]> = {};
  for (const [name, owners] of Object.entries(item))
    if (name.startsWith(GROUP_PREFIX))
      groups[name.slice(GROUP_PREFIX.length)] = [...decodeItem('semaphore group', stringSet, owners, key)];
  return { inflight: decoded.inflight, leases: decoded.leases, groups };
}
