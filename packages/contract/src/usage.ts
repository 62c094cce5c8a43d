import * as z from 'zod/mini';
import { Timestamp, named } from './common';

/** Dollar sums kept to a millionth: provider costs are fractions of a cent, and float sums drift. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/** One paid provider call, as the usage ledger records it. */
export interface UsageEntry {
  tool: string;
  provider: string;
  endpoint: string;
  cost_usd: number;
  /** The sandbox charging list prices (SANDBOX_LIST_PRICES=1): no money was billed. */
  simulated?: boolean;
  /** Answered from the shared cache of public data: no provider call, charged $0. */
  cached?: true;
  /**
   * Written before its paid call, at the call's estimate (its held price), and replaced by the call's
   * line once it is settled: a line still pending is a call whose run ended before it could settle.
   */
  pending?: true;
  /**
   * What a free notification request sent (IndexNow): the host, how many URLs, and the first of them
   * (a request of 10,000 URLs would not fit an item), and the status it was answered with (0: none came).
   */
  sent?: { host: string; url_count: number; urls: string[]; status: number };
  at: string;
}

export const UsageQuery = z
  .object({
    from: z
      .optional(Timestamp)
      .check(z.meta({ description: 'Start, inclusive (default: the start of the current UTC month)' })),
    to: z.optional(Timestamp).check(z.meta({ description: 'End, exclusive (default: now)' })),
    by: z
      .optional(z.literal('day'))
      .check(z.meta({ description: 'day: also break the sums down per UTC day and tool (by_day)' })),
  })
  .check(
    z.refine((v) => v.from === undefined || v.to === undefined || v.from <= v.to, {
      message: 'from must not be after to',
    }),
  );
export type UsageQuery = z.output<typeof UsageQuery>;

export const UsageLine = z.object({
  tool: z.string(),
  provider: z.string(),
  calls: z.int(),
  cost_usd: z.number(),
  simulated: z.optional(z.literal(true)).check(
    z.meta({
      description: "The line's cost is the sandbox charging list prices (SANDBOX_LIST_PRICES=1), not billed money",
    }),
  ),
  cached_calls: z.optional(z.int()).check(
    z.meta({
      description: 'Of calls, those the shared cache answered ($0); absent when none',
    }),
  ),
  pending_calls: z.optional(z.int()).check(
    z.meta({
      description: 'Of calls, those unsettled, at their estimate; absent when none',
    }),
  ),
});
export type UsageLine = z.output<typeof UsageLine>;

export const UsageDayLine = z.extend(UsageLine, {
  day: z.string().check(z.meta({ description: 'The UTC day, YYYY-MM-DD' })),
});
export type UsageDayLine = z.output<typeof UsageDayLine>;

export const UsageReport = named(
  z.object({
    from: z.string(),
    to: z.string(),
    calls: z.int(),
    cost_usd: z.number().check(z.meta({ description: 'Billed money: simulated lines are left out' })),
    simulated_cost_usd: z.optional(z.number()).check(
      z.meta({
        description:
          'What the sandbox charged at list prices (SANDBOX_LIST_PRICES=1) in the window; absent when nothing',
      }),
    ),
    by_tool: z.array(UsageLine).check(z.meta({ description: 'Per tool and provider, costliest first' })),
    by_day: z
      .optional(z.array(UsageDayLine))
      .check(z.meta({ description: 'With by=day: per UTC day, tool and provider, oldest day first, then costliest' })),
  }),
  { id: 'UsageReport' },
);
export type UsageReport = z.output<typeof UsageReport>;
