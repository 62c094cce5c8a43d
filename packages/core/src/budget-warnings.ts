import { BUDGET_WARNING_LEVELS, type BudgetWindow } from '@cm/contract';

/*
 * When a site is warned of its budget (docs/api/usage-and-budgets.md#budget-warnings): once a window
 * reaches 80% of its limit, and once it reaches 100% (or a call is refused for it), at most once each
 * per window's period, in the order they happen.
 */

export type BudgetWarningLevel = (typeof BUDGET_WARNING_LEVELS)[number];

/** The highest level a window's use in percent has reached; null below the first. */
export function warningLevel(usedPct: number): BudgetWarningLevel | null {
  let reached: BudgetWarningLevel | null = null;
  for (const level of BUDGET_WARNING_LEVELS) if (usedPct >= level) reached = level;
  return reached;
}

/** The window's period a UTC day (`yyyy-mm-dd`) is in: the day, or its month (`yyyy-mm`). */
export const warningPeriod = (window: BudgetWindow, day: string): string => (window === 'day' ? day : day.slice(0, 7));

/**
 * A warning's mark, `<period>:<level>` with the level zero-padded: marks of one window sort as the
 * warnings happen (a later period after an earlier one, 100 after 80 in the same period).
 */
export const warningMark = (period: string, level: BudgetWarningLevel): string =>
  `${period}:${String(level).padStart(3, '0')}`;

/** Whether the window's latest mark already covers `mark` (the same warning, or a later one). */
export const warnedAlready = (latest: string | undefined, mark: string): boolean =>
  latest !== undefined && latest >= mark;
