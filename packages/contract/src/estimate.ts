import * as z from 'zod/mini';
import { named } from './common';
import { ToolBudget } from './budget';

/*
 * The price before the call (docs/api.md#estimates-and-approval): every paid tool takes `estimate: true`
 * (answered with a ToolEstimate, spending nothing) and `confirm` (the token an `approval_required`
 * answer gave, when the site's approval threshold asks for one).
 */

/** How long a confirm token is good for. */
export const CONFIRM_TTL_MS = 15 * 60_000;

/** The fields every paid tool's input spreads in; kept short, as tools/list carries them in each. */
export const EstimateFields = {
  estimate: z.optional(z.boolean()).check(z.meta({ description: 'Price only; spend nothing' })),
  // Unbounded here (the body limit bounds it): a bound would cost tools/list bytes in every paid tool.
  confirm: z.optional(z.string()).check(z.meta({ description: "approval_required's token" })),
};

/** One kind of provider call a tool would make. */
export const EstimateCall = z.object({
  provider: z.string(),
  endpoint: z.string(),
  count: z.int(),
  unit_usd: z.number(),
  total_usd: z.number(),
});
export type EstimateCall = z.output<typeof EstimateCall>;

/** What stored data answers at no cost. */
export const EstimateFree = z.object({ what: z.string(), items: z.array(z.string()), reason: z.string() });
export type EstimateFree = z.output<typeof EstimateFree>;

/**
 * A paid tool's answer to `estimate: true`: the calls it would make at list prices, what storage makes
 * free, the budget left and whether the call would need approval. Nothing was spent, stored or reserved.
 */
/**
 * What monitoring a domain daily costs a month at the providers' list prices, the most a month of it
 * can cost, and whether it is paused. Undescribed: add_competitor's result (and its estimate) carries it into tools/list,
 * whose size is bounded (docs/api/research-tools.md#add_competitor says what each field is).
 */
export const MonitoringCost = z.object({
  domain: z.string(),
  month_usd: z.number(),
  at_most_month_usd: z.number(),
  paused: z.boolean(),
});
export type MonitoringCost = z.output<typeof MonitoringCost>;

export const ToolEstimate = named(
  z.object({
    estimate: z.literal(true),
    tool: z.string(),
    data_source: z.string(),
    simulated: z.boolean(),
    calls: z.array(EstimateCall),
    total_usd: z.number(),
    free: z.array(EstimateFree),
    notes: z.array(z.string()),
    budget: ToolBudget,
    confirm_above_usd: z.nullable(z.number()),
    approval_required: z.boolean(),
    monitoring: z.optional(MonitoringCost),
  }),
  { id: 'ToolEstimate', description: 'The price of a paid call, made without spending (estimate: true)' },
);
export type ToolEstimate = z.output<typeof ToolEstimate>;

/**
 * How a paid tool's result schema admits its estimate answer: only `estimate: true` is declared, as
 * tools/list carries this in each paid tool's output schema (the whole of ToolEstimate there would add
 * about 9 KB); the answer is a ToolEstimate, documented in docs/api.md#estimates-and-approval.
 */
const EstimateReply = z.looseObject({ estimate: z.literal(true) });

/** A paid tool's result schema with its estimate answer beside it. */
export const withEstimate = <S extends z.ZodMiniType>(result: S) => z.union([result, EstimateReply]);
