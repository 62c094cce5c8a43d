import * as z from 'zod/mini';
import { PAGE_TYPES } from '@cm/contract';
import { decodeItem } from './decode';

/* The items of pages on a schedule: a change due in a minute, and the sweep's cursor. */

const ScheduledChangeItem = z.looseObject({
  pk: z.string(),
  sk: z.string(),
  site_id: z.int(),
  type: z.enum(PAGE_TYPES),
  id: z.string(),
  change: z.enum(['publish', 'unpublish']),
  at: z.string(),
  version: z.string(),
});

const ScheduleCursorItem = z.looseObject({ minute: z.string() });

export const decodeScheduledChange = (item: Record<string, unknown>) =>
  decodeItem('scheduled change', ScheduledChangeItem, item);
export const decodeScheduleCursor = (item: Record<string, unknown>) =>
  decodeItem('schedule cursor', ScheduleCursorItem, item);
