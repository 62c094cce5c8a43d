import { roundUsd, type EstimateCall, type EstimateFree, type JobMode, type MonitoringCost } from '@cm/contract';

/*
 * A paid tool's plan: the provider calls a run would make and what stored data answers for free. Each
 * workflow makes its plan from the same decisions its run takes (which keywords are pulled, which are
 * skipped), so an estimate (docs/api.md#estimates-and-approval) cannot drift from the run.
 */

/** What a plan needs beyond the tool's context: prices and providers of work other functions run. */
export interface PlanDeps {
  /** The list price of one web research job of a mode (the research worker's providers, as configured). */
  researchUsd(mode: JobMode): number;
  /** The `data_source` of the monitor worker's backlink data (add_competitor's monitoring runs). */
  monitorSource: string;
  /** The `data_source` of the rank worker's SERP tasks (track_rankings' checks). */
  rankSource: string;
}

export interface ToolPlan {
  /** The provider the calls go to: the sandbox, or the real provider's name. */
  data_source: string;
  calls: EstimateCall[];
  free: EstimateFree[];
  notes: string[];
  /** What the monitoring the call starts costs a month (add_competitor's domain). */
  monitoring?: MonitoringCost;
}

/** A line of `count` calls of one operation at `unitUsd` each (none when `count` is 0). */
export const callsOf = (provider: string, endpoint: string, count: number, unitUsd: number): EstimateCall[] =>
  count > 0 ? [{ provider, endpoint, count, unit_usd: roundUsd(unitUsd), total_usd: roundUsd(unitUsd * count) }] : [];

/** Why the shared cache of public data answers a call free: another site paid for the same datum today. */
export const CACHED_TODAY = 'pulled today for another site: answered from the shared cache of public data at $0';

/** What stored data answers, when it answers anything. */
export const freeOf = (what: string, items: readonly string[], reason: string): EstimateFree[] =>
  items.length > 0 ? [{ what, items: [...items], reason }] : [];

export const planTotal = (plan: Pick<ToolPlan, 'calls'>): number =>
  roundUsd(plan.calls.reduce((sum, call) => sum + call.total_usd, 0));

/**
 * A paid tool's workflow with its plan beside it, as `plan`. Each call is marked pure
 * (`/* @__PURE__ *\/`), so a function's bundle that does not use a workflow leaves out it and its plan.
 */
export function withPlan<W extends object, P>(run: W, plan: P): W & { plan: P } {
  return Object.assign(run, { plan });
}
