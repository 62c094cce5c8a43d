import * as z from 'zod/mini';
import { HexColor } from '../cm-tables';
import { LIMITS } from '../limits';
import { EstimateFields, MonitoringCost, withEstimate } from '../estimate';
import { DomainUnicode, ToolMeta } from './shared';
import { defineTool } from './declaration';

export const AddCompetitorInput = z.object({
  domain: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(300),
      z.meta({ description: 'A domain or URL; scheme, www., port, path and query are stripped' }),
    ),
  display_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  color: z.optional(HexColor).check(z.meta({ description: 'Chart color "#rrggbb" or "#rgb"' })),
  ...EstimateFields,
});
export type AddCompetitorInput = z.output<typeof AddCompetitorInput>;

const CompetitorRow = z.object({
  id: z.int(),
  domain: z.string(),
  domain_unicode: DomainUnicode,
  display_name: z.nullable(z.string()),
  color: z.nullable(z.string()),
  active: z.boolean(),
  added_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const AddCompetitorResult = z.object({
  ...ToolMeta,
  competitor: CompetitorRow,
  created: z.boolean().check(z.meta({ description: 'false when the domain already had a row' })),
  completed: z.boolean().check(
    z.meta({
      description: 'true when this call started monitoring a row db_insert had stored (incomplete or inactive)',
    }),
  ),
  monitoring_deferred: z.int().check(
    z.meta({
      description: 'First monitoring runs the budget had no room for: not queued; the daily schedule tries them again',
    }),
  ),
  monitoring: MonitoringCost,
});

export const ADD_COMPETITOR = defineTool({
  name: 'add_competitor',
  title: 'Track a competitor domain',
  description: `Track a competitor domain (scheme and path are stripped): it appears in serp_landscape share of voice and serp_backlinks, and monitoring starts at once, then daily. At most ${LIMITS.activeCompetitors} active per site (409 competitor_limit_reached). Adding a tracked domain again returns it with created: false and updates display_name and color when given; a row db_insert stored, unmonitored or inactive, is completed (monitoring starts, completed: true). Confirm with the user before adding; db_delete of the cm_competitors row stops monitoring.`,
  input: AddCompetitorInput,
  result: withEstimate(AddCompetitorResult),
  mcp: { note: 'Ask the user to confirm the domain before calling.' },
  // Deleting a row (DeleteItem): taking back a competitor row that lost its place under the cap. It
  // queues the first monitoring run of a new competitor, at once.
  grants: { table: 'readWriteDelete', sendsTo: ['monitor', 'budget-warning'] },
});
