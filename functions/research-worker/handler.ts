import { ResearchMessage } from '@cm/contract';
import { Meter } from '@cm/providers';
import { getResearch, getStore, sqsWorker } from '@cm/runtime';
import { runResearchJob } from '@cm/tools';

/** Runs one research job per message; its provider calls go into the usage ledger of the job's site. */
export const handler = sqsWorker(ResearchMessage, async (message) => {
  const meter = new Meter();
  const store = getStore();
  const ran = await runResearchJob({ store, research: getResearch(), meter }, message);
  if (ran) await store.usage.record(ran.siteId, 'research', meter.calls);
});
