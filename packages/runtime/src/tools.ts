import { ApiError, roundUsd, TOOL_FUNCTIONS, toolSpec, type ToolName } from '@cm/contract';
import { ProviderError, resolveAll, type BacklinkDataProvider, type KeywordDataProvider } from '@cm/providers';
import type { ToolContext } from '@cm/tools';
import { api } from './api';
import { json } from './http';
import { researchSource } from './providers';
import { getConfig } from './config';
import { getStore } from './services';
import { meterOf, queuedPriceUsd, siteBudget } from './budget';
import type { Observation } from './observability';

/**
 * What a tool's function is wired to, as the stack grants it: the paid data providers it calls and
 * the queues it sends to. Its bundle holds the SDK clients of these and no others.
 */
export interface ToolWiring {
  keywordData?: () => Promise<KeywordDataProvider>;
  backlinkData?: () => Promise<BacklinkDataProvider>;
  enqueue?: ToolContext['enqueue'];
}

/** A dependency a function is neither wired for nor granted: reaching for it is a bug, said plainly. */
function unwired<T extends object>(tool: ToolName, what: string): T {
  return new Proxy({} as T, {
    get: (_target, key) => {
      throw new Error(`${tool} is not wired for ${what} (${String(key)})`);
    },
  });
}

/** What one run of a tool is for: the caller's site, its input (parsed with the tool's schema), and the request's observation (keyed with the tool). */
interface ToolRun<I> {
  siteId: number;
  input: I;
  observation: Observation;
}

/**
 * Runs one research tool: its providers and meter, `cost_usd` and `cached` on the result, a provider
 * failure as `502 provider_error`, and every provider call in the usage ledger, also when the run
 * fails. The result, or an ApiError. Every way a tool is called (`POST /v1/tools/{name}`, and over MCP
 * through the tool's own function) runs it here.
 */
async function runTool<I>(
  name: ToolName,
  run: (ctx: ToolContext, input: I) => Promise<Record<string, unknown>>,
  wiring: ToolWiring,
  { siteId, input, observation }: ToolRun<I>,
): Promise<Record<string, unknown>> {
  const store = getStore();
  const budget = siteBudget(siteId, observation);
  const meter = meterOf(budget);
  try {
    // Providers are resolved inside the try, so a call that fails on its credentials is still counted.
    const ctx: ToolContext = {
      siteId,
      store,
      keywordData: wiring.keywordData ? await wiring.keywordData() : unwired(name, 'keyword data'),
      backlinkData: wiring.backlinkData ? await wiring.backlinkData() : unwired(name, 'backlink data'),
      researchSource: researchSource(getConfig().research),
      meter,
      budget,
      queuedPriceUsd,
      now: new Date(),
      resolveHost: resolveAll,
      enqueue: wiring.enqueue ?? ((queue) => Promise.reject(new Error(`${name} is not wired for the ${queue} queue`))),
      researchLeaseMs: getConfig().researchLeaseMs,
      measure: (metric, value) => observation.metric(metric, value),
    };
    const result = await run(ctx, input);
    // The reservations are settled before the result says what the budget has left.
    await meter.settled();
    // A result may carry work done elsewhere (a research job's cost); this request's own calls add to it.
    const earlier = typeof result.cost_usd === 'number' ? result.cost_usd : 0;
    const left = await budget.view();
    return {
      ...result,
      cost_usd: roundUsd(earlier + meter.costUsd),
      cached: typeof result.cached === 'boolean' ? result.cached : meter.calls.length === 0,
      ...(left ? { budget: left } : {}),
      ...(meter.simulated ? { simulated: true } : {}),
    };
  } catch (error) {
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
    await store.usage.record(siteId, name, meter.calls);
  }
}

/** The Lambda handler of one research tool: its route, its input schema, then {@link runTool}. */
export function tool<I>(
  name: ToolName,
  run: (ctx: ToolContext, input: I) => Promise<Record<string, unknown>>,
  wiring: ToolWiring = {},
) {
  const spec = toolSpec(name);
  if (!spec) throw new Error(`no tool ${name}`);
  return api(TOOL_FUNCTIONS[name], {
    [`POST /v1/tools/${name}`]: async (request) => {
      const { observation } = request;
      observation.keys({ tool: name });
      observation.dimension('tool', name);
      const input = request.body(spec.input) as I;
      return json(200, await runTool(name, run, wiring, { siteId: request.siteId, input, observation }));
    },
  });
}
