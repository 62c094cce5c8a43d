import {
  ApiError,
  isPaidTool,
  propertyOf,
  type PaidTool,
  roundUsd,
  SERVICE_LIMITS,
  toolFunction,
  type ToolDeclarationOf,
  type ToolInput,
  type ToolName,
  type ToolResult,
} from '@cm/contract';
import { Bug } from '@cm/core';
import { ProviderError, resolveAll, type BacklinkDataProvider, type KeywordDataProvider } from '@cm/providers';
import {
  pendingLedger,
  providerUnavailable,
  recordCalls,
  requireApproval,
  toolEstimate,
  type PlanDeps,
  type ToolContext,
  type ToolPlan,
} from '@cm/tools';
import { api } from './api';
import { serviceUnavailable } from './http/errors';
import { json } from './http/replies';
import { researchSource } from './providers';
import { getConfig } from './config';
import { getStore } from './services';
import { planDeps, meterOf, providerBreakers, queuedPriceUsd, siteBudget } from './budget';
import type { Observation } from './observability';

/**
 * What a tool's function is wired to, as the stack grants it: the paid data providers it calls and
 * the queues it sends to. Its bundle has the SDK clients of these and no others.
 */
export interface ToolWiring {
  keywordData?: () => Promise<KeywordDataProvider>;
  backlinkData?: () => Promise<BacklinkDataProvider>;
  enqueue?: ToolContext['enqueue'];
}

/** A dependency a function is neither wired for nor granted: reaching for any of its members is a bug, said plainly. */
class Unwired {
  constructor(
    private readonly tool: ToolName,
    private readonly what: string,
  ) {}

  protected fail(member: string): never {
    throw new Bug(`${this.tool} is not wired for ${this.what} (${member})`);
  }

  get name(): string {
    return this.fail('name');
  }
}

class UnwiredKeywordData extends Unwired implements KeywordDataProvider {
  readonly keywordMetrics = () => this.fail('keywordMetrics');
  readonly keywordIdeas = () => this.fail('keywordIdeas');
  readonly serpOrganic = () => this.fail('serpOrganic');
  readonly placeTracked = () => this.fail('placeTracked');
}

class UnwiredBacklinkData extends Unwired implements BacklinkDataProvider {
  readonly numbersEndpoints = [];
  readonly profile = () => this.fail('profile');
  readonly numbers = () => this.fail('numbers');
  readonly trend = () => this.fail('trend');
  readonly detail = () => this.fail('detail');
  readonly links = () => this.fail('links');
  readonly linkGap = () => this.fail('linkGap');
}

/** What one run of a tool is for: the caller's site, its input (parsed with the tool's schema), and the request's observation (keyed with the tool). */
interface ToolRun<I extends object> {
  siteId: number;
  input: I;
  observation: Observation;
  /** The route's deadline: provider calls in flight stop, and their holds are cancelled, before the run answers. */
  deadline: AbortSignal;
  /** A paid tool's planner (its workflow's `plan`, plannerOf): its estimate, and the approval its threshold asks for. */
  planner?: (ctx: ToolContext, input: I, deps: PlanDeps) => Promise<ToolPlan>;
}

/** The fields of a result that a run adds: its cost and whether it was cached (a workflow may give them), the budget left, and the simulated flag. */
type RunFields = 'cost_usd' | 'cached' | 'budget' | 'simulated';
/** Omit over each member of a union (a plain Omit would merge the members of a result that is one). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a tool's workflow answers: its result without what the run adds; the compiler refuses one that does not fit. */
export type WorkflowResult<N extends ToolName> = OmitEach<ToolResult<N>, RunFields> & {
  cost_usd?: number;
  cached?: boolean;
};
/** A paid tool's plan of a call, priced into its estimate (`estimate: true`) and checked against its approval threshold. */
export type Planner<N extends ToolName> = (ctx: ToolContext, input: ToolInput<N>, deps: PlanDeps) => Promise<ToolPlan>;
/**
 * A tool's workflow. A paid tool's carries its planner as `plan`, beside the run it shares its
 * decisions with (the compiler refuses a paid tool's workflow without one); each function's bundle
 * carries its own tool's plan only.
 */
export type Workflow<N extends ToolName> = ((ctx: ToolContext, input: ToolInput<N>) => Promise<WorkflowResult<N>>) &
  (N extends PaidTool ? { plan: Planner<N> } : unknown);

const isPlanner = <N extends ToolName>(value: unknown): value is Planner<N> => typeof value === 'function';

/** A workflow's planner (its `plan`), for a paid tool; a paid tool without one is a wiring bug, refused when its function loads. */
function plannerOf<N extends ToolName>(name: N, run: object): Planner<N> | undefined {
  const planner: unknown = Reflect.get(run, 'plan');
  if (isPlanner<N>(planner)) return planner;
  if (isPaidTool(name)) throw new Bug(`${name} is a paid tool and its workflow has no estimate`);
  return undefined;
}

/**
 * Runs one research tool: its providers and meter, `cost_usd` and `cached` on the result, a provider
 * failure as `502 provider_error`, and every provider call in the usage ledger, also when the run
 * fails. The result, or an ApiError. Every way a tool is called (`POST /v1/tools/{name}`, and over MCP
 * through the tool's own function) runs it here.
 */
async function runTool<I extends object, R extends { cost_usd?: number; cached?: boolean }>(
  name: ToolName,
  run: (ctx: ToolContext, input: I) => Promise<R>,
  wiring: ToolWiring,
  { siteId, input, observation, planner, deadline }: ToolRun<I>,
) {
  const store = getStore();
  const budget = siteBudget(siteId, observation, wiring.enqueue);
  const meter = meterOf(budget, {
    gate: providerBreakers(observation),
    signal: deadline,
    ledger: pendingLedger(store, siteId, name),
  });
  try {
    // Providers are resolved inside the try, so a call that fails on its credentials is still counted.
    const ctx: ToolContext = {
      siteId,
      store,
      keywordData: wiring.keywordData ? await wiring.keywordData() : new UnwiredKeywordData(name, 'keyword data'),
      backlinkData: wiring.backlinkData ? await wiring.backlinkData() : new UnwiredBacklinkData(name, 'backlink data'),
      researchSource: researchSource(getConfig().research),
      meter,
      budget,
      queuedPriceUsd,
      now: new Date(),
      resolveHost: resolveAll,
      enqueue: wiring.enqueue ?? ((queue) => Promise.reject(new Bug(`${name} is not wired for the ${queue} queue`))),
      researchLeaseMs: getConfig().researchLeaseMs,
      measure: (metric, value) => observation.metric(metric, value),
    };
    if (planner && isPaidTool(name)) {
      // The site's limits: read once per call, and the same read the budget's reservations use.
      const limits = await budget.limits();
      const wantsEstimate = propertyOf(input, 'estimate') === true;
      if (wantsEstimate || limits.confirm_above_usd !== null) {
        const estimate = await toolEstimate(ctx, name, await planner(ctx, input, planDeps()), limits);
        if (wantsEstimate) return estimate;
        const confirm = propertyOf(input, 'confirm');
        await requireApproval(ctx, name, input, typeof confirm === 'string' ? confirm : undefined, estimate);
      }
    }
    const result = await run(ctx, input);
    // The reservations are settled before the result says what the budget has left.
    await meter.settled();
    // A result may carry work done elsewhere (a research job's cost); this request's own calls add to it.
    const earlier = typeof result.cost_usd === 'number' ? result.cost_usd : 0;
    const left = await budget.view();
    return {
      ...result,
      cost_usd: roundUsd(earlier + meter.costUsd),
      // No provider called: storage, or the shared cache of public data, answered everything.
      cached: typeof result.cached === 'boolean' ? result.cached : meter.calls.every((call) => call.cached === true),
      ...(left ? { budget: left } : {}),
      ...(meter.simulated ? { simulated: true } : {}),
    };
  } catch (error) {
    // Given up at the deadline: the holds it placed are cancelled below, then the answer is the deadline's.
    if (deadline.aborted) throw serviceUnavailable('The request did not finish in time');
    // No answer in time, after the attempts the route's time allows: the provider is down or hanging.
    if (error instanceof ProviderError && error.timedOut)
      throw providerUnavailable(error.provider, SERVICE_LIMITS.unavailableRetryAfterMs);
    if (error instanceof ProviderError) {
      throw new ApiError('provider_error', `${error.provider}: ${error.message}`, {
        provider: error.provider,
        retryable: error.retryable,
      });
    }
    throw error;
  } finally {
    await meter.settled();
    observation.metric('tool_calls');
    observation.metric('provider_cost_usd', meter.costUsd);
    await recordCalls(store, siteId, name, meter);
  }
}

/** The Lambda handler of one research tool, from its declaration: its route, its input schema, then {@link runTool}. */
export function tool<N extends ToolName>( // The name's own type, so a handler's call infers its tool from the declaration it passes.
  declaration: { name: N } & ToolDeclarationOf<N>,
  run: Workflow<N>,
  wiring: ToolWiring = {},
) {
  const { name } = declaration;
  const planner = plannerOf(name, run);
  return api(toolFunction(name), {
    [`POST /v1/tools/${name}`]: async (request) => {
      const { observation } = request;
      observation.keys({ tool: name });
      observation.dimension('tool', name);
      const input: ToolInput<N> = request.body(declaration.input);
      return json(
        200,
        await runTool(name, run, wiring, {
          siteId: request.siteId,
          input,
          observation,
          planner,
          deadline: request.deadline,
        }),
      );
    },
  });
}
