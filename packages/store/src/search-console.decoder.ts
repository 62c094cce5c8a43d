import * as z from 'zod/mini';
import { SEARCH_CONSOLE_STATUSES } from '@cm/contract';
import { decodeItem } from './decode';

/** A site's Search Console connection item. */
const SearchConsoleItem = z.looseObject({
  site_id: z.int(),
  property: z.string(),
  status: z.enum(SEARCH_CONSOLE_STATUSES),
  connected_at: z.string(),
  imported_through: z.optional(z.string()),
  last_error: z.optional(z.string()),
  /** Read again after a refusal: the next daily plan queues the backfill's days again. */
  backfill_due: z.optional(z.boolean()),
});
export type SearchConsoleConnection = z.output<typeof SearchConsoleItem>;

export const decodeSearchConsole = (item: Record<string, unknown>): SearchConsoleConnection =>
  decodeItem('search console connection', SearchConsoleItem, item);
