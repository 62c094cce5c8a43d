import { LIMITS } from '@cm/contract';
import { BUDGET_USD_MAX, MAX_ACTIVE_COMPETITORS } from '../../packages/dashboard/app/limits';

/* The limits the dashboard names before it asks are the API's own (written out so the browser bundle has no zod). */

it('names the same cap of active competitors and the same largest budget limit as the contract', () => {
  expect(MAX_ACTIVE_COMPETITORS).toBe(LIMITS.activeCompetitors);
  expect(BUDGET_USD_MAX).toBe(LIMITS.budgetUsdMax);
});
