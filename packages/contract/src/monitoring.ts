import * as z from 'zod/mini';
import { named } from './common';
import { MonitoringCost } from './estimate';

/*
 * What a site's monitoring costs a month, and its one setting: competitor monitoring paused or not
 * (docs/api/research-tools.md#pausing-competitor-monitoring).
 */

export const MonitoringInput = z.object({
  competitors_paused: z.boolean().check(
    z.meta({
      description:
        "true: the daily monitoring runs take only the site's own domain (and its link gap); false: its active competitors too",
    }),
  ),
});
export type MonitoringInput = z.output<typeof MonitoringInput>;

export const MonitoringView = named(
  z.object({
    competitors_paused: z.boolean(),
    paused_at: z
      .nullable(z.string())
      .check(z.meta({ description: 'When competitor monitoring was paused; null: it runs' })),
    domains: z.array(MonitoringCost).check(
      z.meta({
        description:
          "The site's own domain, then each active competitor's: what monitoring it daily costs a month at list prices, the most it can, and paused (not monitored while competitor monitoring is paused)",
      }),
    ),
    month_usd: z
      .number()
      .check(z.meta({ description: 'What a month of the monitoring that runs costs (paused domains left out)' })),
    at_most_month_usd: z.number(),
  }),
  { id: 'Monitoring', description: "This site's daily monitoring: what it monitors, and what a month of it costs" },
);
export type MonitoringView = z.output<typeof MonitoringView>;

/** The MCP tool's input: without competitors_paused it only reads. */
export const MonitoringToolInput = z.object({ competitors_paused: z.optional(z.boolean()) });
/**
 * The MCP tool's result as tools/list declares it: the Monitoring view, whose other fields are
 * documented (docs/api/research-tools.md#pausing-competitor-monitoring), kept out of the bounded listing.
 */
export const MonitoringToolResult = z.looseObject({ competitors_paused: z.boolean(), month_usd: z.number() });
