import * as z from 'zod/mini';
import { Finding, ResearchSource } from '../research';
import { ToolBudget } from '../budget';

/* What several tools' results share: the run's fields, a stored row, research findings. */

export const ToolMeta = {
  data_source: z
    .string()
    .check(z.meta({ description: '"sandbox", the real provider\'s name, or "database" for stored rows' })),
  cost_usd: z.number().check(z.meta({ description: 'What the paid provider calls of this request cost' })),
  cached: z.boolean().check(z.meta({ description: 'true when stored data answered and no provider was called' })),
  budget: z
    .optional(ToolBudget)
    .check(z.meta({ description: 'Paid results: what the tightest budget window has left' })),
  simulated: z.optional(z.literal(true)).check(z.meta({ description: 'cost_usd is sandbox list prices, not billed' })),
};
/** The fields every tool result has of its run (what it cost, where from): MCP describes them once, not per tool. */
export const TOOL_META_FIELDS: readonly string[] = Object.keys(ToolMeta);

export const Row = z.looseObject({ id: z.int(), created_at: z.string(), updated_at: z.string() });

export const ResearchFindings = {
  research_id: z.string(),
  facts: z.array(Finding),
  opinions: z.array(Finding),
  sources: z.array(ResearchSource),
};

/** An internationalised domain in Unicode, for display (`domain` is its punycode); else the same as `domain`. */
export const DomainUnicode = z.string();
