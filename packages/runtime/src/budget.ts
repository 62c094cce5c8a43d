import type { Enqueue } from '@cm/contract';
import { Meter, monitorWorkPrice, rankCheckPrice, webResearchPrice, type MeterOptions } from '@cm/providers';
import { ProviderBreakers, SiteBudget, type PlanDeps, type ToolContext } from '@cm/tools';
import { getConfig } from './config';
import { researchSource } from './providers';
import { getBreakers, getStore } from './services';
import { logger } from './observability';
import type { Observation } from './observability';

/**
 * The daily schedule's work stopped short of the deployment's cap (a schedule that started nothing, or a
 * site's run deferred): scheduled_work_stopped under the service dimension alone, which one alarm watches.
 */
export function scheduledWorkStopped(observation: Observation, details: Record<string, unknown> = {}): void {
  observation.log.warn(
    "the daily schedule's work stopped: the deployment's daily budget is down to the share kept for the sites' own calls",
    details,
  );
  observation.metric('scheduled_work_stopped', 1, {});
}

/**
 * A site's budget, with the deployment's cap. With an observation, the share used is reported as
 * budget_usd_used_pct under the service dimension alone (not the tool's), so one alarm watches every site.
 * With `enqueue` (a function that may send to the budget-warning queue, and so bundles the SQS client),
 * the site's webhook hears of its budget (docs/api/usage-and-budgets.md#budget-warnings). `scheduled`: the
 * budget of the daily schedule's work, which stops short of the deployment's cap.
 */
export const siteBudget = (
  siteId: number,
  observation?: Observation,
  enqueue?: Enqueue,
  scheduled = false,
): SiteBudget =>
  new SiteBudget(getStore(), siteId, {
    deploymentDailyUsd: getConfig().globalDailyBudgetUsd,
    now: () => new Date(),
    ...(scheduled
      ? { scheduled: { stopped: () => observation && scheduledWorkStopped(observation, { site_id: siteId }) } }
      : {}),
    measure: observation ? (usedPct) => observation.metric('budget_usd_used_pct', usedPct, {}) : undefined,
    warn: enqueue
      ? (warning) =>
          enqueue('budget-warning', warning).catch((error: unknown) => {
            // The paid call stands; its warning is lost, and says so.
            (observation?.log ?? logger).error('a budget warning could not be queued', { warning, error });
          })
      : undefined,
  });

/** A meter: with a guard, it reserves each paid call from that budget; without, it only records (queued work reserved when accepted). */
export const meterOf = (guard?: SiteBudget, run: Pick<MeterOptions, 'gate' | 'signal' | 'ledger'> = {}): Meter =>
  new Meter({ guard, listPrices: getConfig().sandboxListPrices, ...run });

/**
 * The providers' shared circuit breakers. An opening is reported as provider_breaker_opened and each
 * refusal as provider_calls_refused, under the service dimension alone (not the tool's), so one alarm
 * watches every tool.
 */
export const providerBreakers = (observation: Observation): ProviderBreakers =>
  new ProviderBreakers(getBreakers(), {
    now: () => Date.now(),
    opened: (provider) => {
      observation.log.warn('a provider breaker opened: its paid calls are refused until it answers again', {
        provider,
      });
      observation.metric('provider_breaker_opened', 1, {});
    },
    refused: () => observation.metric('provider_calls_refused', 1, {}),
  });

/**
 * The list price of queued work as configured: real providers cost their list price, the sandbox
 * nothing unless SANDBOX_LIST_PRICES=1.
 */
export const queuedPriceUsd: ToolContext['queuedPriceUsd'] = (work) => {
  const config = getConfig();
  if ('research' in work) {
    const paid = researchSource(config.research) !== 'sandbox' || config.sandboxListPrices;
    return paid ? webResearchPrice(work.research, config.research.bedrockModelId) : 0;
  }
  const paid = dataforseoConfigured() || config.sandboxListPrices;
  if (!paid) return 0;
  if ('rank' in work) return rankCheckPrice(work.rank);
  if ('backlinks' in work) return monitorWorkPrice(work.backlinks);
  // A domain's first run: its numbers (a bulk request of its own), its trend, its detail, and the site's gap.
  return monitorWorkPrice({ numbers: 1, trends: 1, details: 1, gaps: work.monitor === 'site' ? 1 : 0 });
};

/** Whether DataForSEO has credentials (else its data comes from the sandbox). */
function dataforseoConfigured(): boolean {
  const { dataforseo } = getConfig();
  return Boolean(dataforseo.secret || (dataforseo.login && dataforseo.password));
}

/** What estimates price work other functions run at: its list price whatever the provider, and the monitor's data source. */
export const planDeps = (): PlanDeps => ({
  researchUsd: (mode) => webResearchPrice(mode, getConfig().research.bedrockModelId),
  monitorSource: dataforseoConfigured() ? 'dataforseo' : 'sandbox',
  rankSource: dataforseoConfigured() ? 'dataforseo' : 'sandbox',
});
