import { ResearchMessage } from '@cm/contract';
import { enqueue, getConfig, getStore, meterOf, siteBudget, sqsWorker } from '@cm/runtime';
import { getResearch } from '@cm/runtime/web-provider';
import { runResearchJob } from '@cm/tools';

/** Runs one research job per message (its provider calls go into the job's site's usage ledger and settle its reservation: see runResearchJob). */
export const handler = sqsWorker('research', ResearchMessage, async (message, observation, deadline) => {
  // Its job's site is read by the run, which then has the meter write its pending lines there.
  const meter = meterOf(undefined, { signal: deadline });
  const store = getStore();
  const budgetOf = (siteId: number) => siteBudget(siteId, observation, enqueue);
  const ran = await runResearchJob(
    { store, research: await getResearch(), meter, enqueue, researchLeaseMs: getConfig().researchLeaseMs, budgetOf },
    message,
  );
  if (!ran) return;
  observation.metric('provider_cost_usd', meter.costUsd, { tool: ran.tool });
});
