import * as z from 'zod/mini';
import { PAGE_TYPES } from './common';

/*
 * The refresh queue (docs/api/search-console.md#traffic-and-decay): a site's decayed pages, each with its
 * likely cause and clicks at risk, and the measure of its republish.
 */

/** A decayed page's likely cause, the first that holds in this order (docs/api/decisions.md#decay). */
export const DECAY_CAUSES = [
  'positions_lost',
  'ai_overview',
  'ctr_fell',
  'demand_fell',
  'page_changed',
  'unknown',
] as const;
export type DecayCause = (typeof DECAY_CAUSES)[number];

/** A republished page's measure, 28 days after: back to 80 % of its clicks before the drop, or not. */
export const REFRESH_OUTCOMES = ['recovered', 'not_recovered'] as const;
export type RefreshOutcome = (typeof REFRESH_OUTCOMES)[number];

/** A flagged page of the queue, as stored and listed. */
export const RefreshEntry = z.object({
  page: z.object({ type: z.enum(PAGE_TYPES), id: z.string() }),
  url: z.string(),
  cause: z.enum(DECAY_CAUSES),
  /** The last day of the 28 days that flagged it. */
  flagged_on: z.string(),
  /** Its clicks over the 28 days before, and over the 28 days that flagged it. */
  clicks_before: z.int(),
  clicks_now: z.int(),
  /** clicks_before − clicks_now: the queue's order, most first. */
  clicks_at_risk: z.int(),
  /** When a publish changed the live page's content after the flag: its measure is due 28 days later. */
  refreshed_at: z.nullable(z.string()),
  measured: z.nullable(z.object({ outcome: z.enum(REFRESH_OUTCOMES), clicks_after: z.int(), measured_on: z.string() })),
});
export type RefreshEntry = z.infer<typeof RefreshEntry>;
