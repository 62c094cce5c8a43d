import { LIMITS, SearchTrafficInput } from '@cm/contract';
import { DEVICES as CONTRACT_DEVICES } from '../../packages/contract/src/ranks';
import { TRAFFIC_WINDOWS as CONTRACT_TRAFFIC_WINDOWS } from '../../packages/contract/src/tools/search-traffic';
import {
  BUDGET_USD_MAX,
  DEVICES,
  MAX_ACTIVE_COMPETITORS,
  TRAFFIC_WINDOW_DEFAULT,
  TRAFFIC_WINDOWS,
} from '../../packages/dashboard/app/limits';

/* The limits and choices the dashboard names before it asks are the API's own (written out so the browser bundle has no zod). */

it('names the same cap of active competitors and the same largest budget limit as the contract', () => {
  expect(MAX_ACTIVE_COMPETITORS).toBe(LIMITS.activeCompetitors);
  expect(BUDGET_USD_MAX).toBe(LIMITS.budgetUsdMax);
});

it('offers the devices the contract checks ranks on', () => {
  expect(DEVICES).toEqual(CONTRACT_DEVICES);
});

it('offers the windows search_traffic compares, its default first chosen', () => {
  expect(TRAFFIC_WINDOWS).toEqual(CONTRACT_TRAFFIC_WINDOWS);
  expect(SearchTrafficInput.parse({}).window_days).toBe(TRAFFIC_WINDOW_DEFAULT);
});
