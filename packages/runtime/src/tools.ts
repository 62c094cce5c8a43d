import { ApiError, roundUsd, toolSpec, type ToolName } from '@cm/contract';
import { Meter, ProviderError } from '@cm/providers';
import { RESEARCH_LEASE_MS, type ToolContext } from '@cm/tools';
import { api, json } from './http';
import { enqueue } from './queues';
import { researchSource } from './providers';
import { getBacklinkData, getConfig, getKeywordData, getStore } from './services';

/**
 * The Lambda handler of one research tool: its route, its input schema, the providers, and the
 * usage ledger, which records every provider call of the request, also when the request fails.
 */
export function tool<I>(name: ToolName, run: (ctx: ToolContext, input: I) => Promise<Record<string, unknown>>) {
  const spec = toolSpec(name);
  if (!spec) throw new Error(`no tool ${name}`);
  return api(spec.fn, {
    [`POST /v1/tools/${name}`]: async (request) => {
      const { observation } = request;
      observation.keys({ tool: name });
      observation.dimension('tool', name);
      const input = request.body(spec.input) as I;
      const store = getStore();
      const ctx: ToolContext = {
        siteId: request.siteId,
        store,
        keywordData: await getKeywordData(),
        backlinkData: await getBacklinkData(),
        researchSource: researchSource(getConfig().research),
        meter: new Meter(),
        now: new Date(),
        enqueue,
        researchLeaseMs: getConfig().researchLeaseMs ?? RESEARCH_LEASE_MS,
        measure: (metric, value) => observation.metric(metric, value),
      };
      try {
        const result = await run(ctx, input);
        // A result may carry work done elsewhere (a research job's cost); this request's own calls add to it.
        const earlier = typeof result.cost_usd === 'number' ? result.cost_usd : 0;
        return json(200, {
          ...result,
          cost_usd: roundUsd(earlier + ctx.meter.costUsd),
          cached: typeof result.cached === 'boolean' ? result.cached : ctx.meter.calls.length === 0,
        });
      } catch (error) {
        if (error instanceof ProviderError) {
          throw new ApiError('provider_error', `${error.provider}: ${error.message}`, {
            provider: error.provider,
            retryable: error.retryable,
          });
        }
        throw error;
      } finally {
        observation.metric('tool_calls');
        observation.metric('provider_cost_usd', ctx.meter.costUsd);
        await store.usage.record(ctx.siteId, name, ctx.meter.calls);
      }
    },
  });
}
