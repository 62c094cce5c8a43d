import * as z from 'zod/mini';
import { PageStatus } from '@cm/contract';
import { decodeItem } from './decode';

/* The items IndexNow keeps: a site's URL waiting to be sent, and a page's address as announcing it reads it. */

const PendingUrlItem = z.looseObject({ url: z.string(), changed_at: z.string() });
const PageAddressItem = z.looseObject({
  slug: z.string(),
  noindex: z.optional(z.boolean()),
  status: z.optional(PageStatus),
  deleted: z.optional(z.boolean()),
});

type Item = Record<string, unknown>;

export const decodePendingUrl = (item: Item) => decodeItem('IndexNow URL', PendingUrlItem, item);
export const decodePageAddress = (item: Item, key: Item) => decodeItem('page', PageAddressItem, item, key);
