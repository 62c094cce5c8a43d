import { getStore, scheduled } from '@cm/runtime';
import { sweepResearch } from '@cm/tools';

/** Every minute (EventBridge): research jobs whose lease lapsed end `lease_expired`, and their places under the cap are freed. */
export const handler = scheduled('research swept', () => sweepResearch(getStore()));
