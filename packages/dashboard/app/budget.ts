import { fmtUsd, roundUsd } from './format';
import type { Budget, BudgetWindow } from './types';

/* The site's budget (GET /v1/budget, free) in words: what its windows have left, for the spend view and the dialogs of paid actions. */

export const WINDOWS = [
  { key: 'daily', adjective: 'daily', period: 'today' },
  { key: 'monthly', adjective: 'monthly', period: 'this month' },
] as const;

/** What a window has left before paid calls are refused: limit − spent − reserved; null with no limit. */
export const remainingUsd = (w: BudgetWindow): number | null =>
  w.limit_usd === null ? null : Math.max(0, roundUsd(w.limit_usd - w.spent_usd - w.reserved_usd));

/** The share of the limit spent and reserved (simulated spend counts too: the budget stops it alike), 0–1; null with no limit. */
export function usedShare(w: BudgetWindow): number | null {
  if (w.limit_usd === null) return null;
  return w.limit_usd > 0 ? (w.spent_usd + w.reserved_usd) / w.limit_usd : 1;
}

/** What the budget leaves for paid calls, in one sentence. */
export function budgetLeftInWords(budget: Budget): string {
  const limited = WINDOWS.filter(({ key }) => budget[key].limit_usd !== null);
  if (limited.length === 0)
    return 'The site has no budget limit: nothing stops paid calls (“Set budget” under Spend sets one).';
  const left = limited.map(
    ({ key, period }) => `${fmtUsd(remainingUsd(budget[key]))} of ${period}’s ${fmtUsd(budget[key].limit_usd)} limit`,
  );
  return `Budget left: ${left.join(' and ')}. A provider call that would pass a limit is refused before it is made.`;
}
