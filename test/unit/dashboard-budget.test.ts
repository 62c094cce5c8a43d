import { ApiFailure, errorInWords } from '../../packages/dashboard/app/errors';
import { budgetLeftInWords, remainingUsd, usedShare } from '../../packages/dashboard/app/budget';
import { costInWords, SIMULATED } from '../../packages/dashboard/app/format';
import type { Budget, BudgetWindow } from '../../packages/dashboard/app/types';

/* How the dashboard words the budget: what a window has left, a paid result's cost, and a 402. */

const window = (w: Partial<BudgetWindow>): BudgetWindow => ({
  limit_usd: null,
  spent_usd: 0,
  reserved_usd: 0,
  simulated_usd: 0,
  resets_at: '2026-11-24T00:00:00.000Z',
  ...w,
});

describe('a budget window', () => {
  it('has left its limit less spent and reserved, never below zero, without float dust; nothing to say with no limit', () => {
    expect(remainingUsd(window({ limit_usd: 0.3, spent_usd: 0.1, reserved_usd: 0.1 }))).toBe(0.1);
    expect(remainingUsd(window({ limit_usd: 1, spent_usd: 1.2 }))).toBe(0);
    expect(remainingUsd(window({}))).toBeNull();
  });

  it('is used by spent and reserved money over its limit; a zero limit is all used', () => {
    expect(usedShare(window({ limit_usd: 4, spent_usd: 1, reserved_usd: 1 }))).toBe(0.5);
    expect(usedShare(window({ limit_usd: 0 }))).toBe(1);
    expect(usedShare(window({}))).toBeNull();
  });
});

describe('budgetLeftInWords', () => {
  it('names what each limited window has left, and says when there is no limit', () => {
    const budget: Budget = {
      daily: window({ limit_usd: 5, spent_usd: 1.5 }),
      monthly: window({ limit_usd: 100, spent_usd: 31, reserved_usd: 1 }),
      confirm_above_usd: null,
      warning_webhook_url: null,
    };
    expect(budgetLeftInWords(budget)).toBe(
      'Budget left: $3.50 of today’s $5.00 limit and $68.00 of this month’s $100.00 limit. A provider call that would pass a limit is refused before it is made.',
    );
    expect(budgetLeftInWords({ ...budget, daily: window({}) })).toMatch(
      /^Budget left: \$68\.00 of this month’s \$100\.00 limit\./,
    );
    expect(
      budgetLeftInWords({ daily: window({}), monthly: window({}), confirm_above_usd: null, warning_webhook_url: null }),
    ).toMatch(/^The site has no budget limit/);
  });
});

describe('costInWords', () => {
  it('says simulated money is not billed, keeps the free sandbox’s wording otherwise, and adds what the budget left', () => {
    expect(
      costInWords({
        cost_usd: 0.0035,
        data_source: 'sandbox',
        simulated: true,
        budget: { remaining_usd: 2.4, window: 'day' },
      }),
    ).toBe(`Cost $0.0035 (${SIMULATED}). Budget left today: $2.40.`);
    expect(costInWords({ cost_usd: 0, data_source: 'sandbox', budget: { remaining_usd: null, window: null } })).toBe(
      'Cost $0.00 (sandbox: simulated, free).',
    );
    expect(
      costInWords({ cost_usd: 0.02, data_source: 'dataforseo', budget: { remaining_usd: 7, window: 'month' } }),
    ).toBe('Cost $0.02 (data from dataforseo). Budget left this month: $7.00.');
  });
});

describe('errorInWords of 402 budget_exceeded', () => {
  const refusal = (body: Record<string, unknown>) =>
    new ApiFailure(402, 'budget_exceeded', 'This call would pass the budget (GET /v1/budget)', {
      code: 'budget_exceeded',
      ...body,
    });

  it("names the site's window, its limit, what is spent and reserved, and when it resets", () => {
    expect(
      errorInWords(
        refusal({
          scope: 'site',
          window: 'month',
          limit_usd: 50,
          spent_usd: 49.99,
          reserved_usd: 0.02,
          resets_at: '2026-12-01T00:00:00.000Z',
        }),
      ),
    ).toBe(
      "Refused by the budget: the next provider call would pass the site's monthly limit of $50.00 ($49.99 spent, $0.02 reserved in flight), so it was not made. It resets 2026-12-01 00:00 UTC. “Set budget” under Spend changes the limit.",
    );
  });

  it("names no amounts for the deployment's cap, which sums every site", () => {
    expect(
      errorInWords(
        refusal({
          scope: 'deployment',
          window: 'day',
          limit_usd: null,
          spent_usd: null,
          resets_at: '2026-11-24T00:00:00.000Z',
        }),
      ),
    ).toBe(
      "Refused by the budget: the deployment's daily provider budget is used up, so the next provider call was not made. It resets 2026-11-24 00:00 UTC.",
    );
  });
});
