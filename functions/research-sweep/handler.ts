import { enqueue, getConfig, getStore, scheduled } from '@cm/runtime';
import { sweepResearch } from '@cm/tools';

/**
 * Every minute (EventBridge): research jobs whose lease lapsed end `lease_expired`, their places under
 * the cap are freed, and the places free go to the jobs waiting longest.
 */
export const handler = scheduled('research swept', () =>
  sweepResearch({ store: getStore(), enqueue, researchLeaseMs: getConfig().researchLeaseMs }),
);
