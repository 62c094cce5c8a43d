import * as z from 'zod/mini';
import { named, parseUrl } from './common';
import { LIMITS } from './limits';
import { StoredNumber } from './cm-tables';

/** The windows a site's budget counts spend in: the UTC day and the UTC month. */
export const BUDGET_WINDOWS = ['day', 'month'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/**
 * The budgets a deployment and a new site start with, sized for the issue-49 workload of 10,000 sites
 * (docs/api/decisions.md#default-budgets): the deployment's daily cap when its deployer gives none
 * (`-c globalDailyBudgetUsd`), the share of it the daily schedule's work leaves to callers, and a new
 * site's daily and monthly limits until its creator changes them.
 */
export const DEFAULT_BUDGETS = {
  globalDailyUsd: 3000,
  scheduleReservePct: 25,
  siteDailyUsd: 5,
  siteMonthlyUsd: 50,
} as const;

// StoredNumber: a limit under 1e-130 (other than 0) is a 400, not a DynamoDB underflow.
const Usd = StoredNumber.check(z.minimum(0), z.maximum(LIMITS.budgetUsdMax));

/** A site's webhook: https without credentials; where it resolves to is checked when a warning is sent. */
const WebhookUrl = z.string().check(
  z.maxLength(2048),
  z.refine((v) => {
    const url = parseUrl(v);
    return url !== null && url.protocol === 'https:' && !url.username && !url.password;
  }, 'must be an absolute https URL without credentials'),
);

export const BudgetInput = z
  .object({
    daily_usd: z
      .optional(z.nullable(Usd))
      .check(z.meta({ description: 'The most this site may spend per UTC day; null: no limit; absent: unchanged' })),
    monthly_usd: z
      .optional(z.nullable(Usd))
      .check(z.meta({ description: 'The most this site may spend per UTC month; null: no limit; absent: unchanged' })),
    confirm_above_usd: z.optional(z.nullable(Usd)).check(
      z.meta({
        description:
          'A paid call whose estimate passes this is answered 428 approval_required with a confirm token; null: never; absent: unchanged',
      }),
    ),
    warning_webhook_url: z.optional(z.nullable(WebhookUrl)).check(
      z.meta({
        description:
          "Where the service POSTs this site's budget warnings (a window at 80% of its limit, and at 100%): an https URL on a public address; null: none; absent: unchanged",
      }),
    ),
  })
  .check(
    z.refine(
      (v) =>
        v.daily_usd !== undefined ||
        v.monthly_usd !== undefined ||
        v.confirm_above_usd !== undefined ||
        v.warning_webhook_url !== undefined,
      { message: 'give daily_usd, monthly_usd, confirm_above_usd, warning_webhook_url or any of them' },
    ),
  );
export type BudgetInput = z.output<typeof BudgetInput>;

export const BudgetWindowView = named(
  z.object({
    limit_usd: z.nullable(z.number()).check(z.meta({ description: 'null: no limit' })),
    spent_usd: z
      .number()
      .check(z.meta({ description: 'Settled spend of the window: billed money, plus simulated_usd' })),
    reserved_usd: z
      .number()
      .check(z.meta({ description: 'Estimates of paid calls and queued work in flight, not settled yet' })),
    simulated_usd: z.number().check(
      z.meta({
        description:
          'The part of spent_usd the sandbox charged at list prices (SANDBOX_LIST_PRICES=1): no money was billed',
      }),
    ),
    resets_at: z.string().check(z.meta({ description: 'When the next window starts (UTC)' })),
  }),
  { id: 'BudgetWindow', description: "A day's or a month's spend" },
);
export type BudgetWindowView = z.output<typeof BudgetWindowView>;

export const BudgetView = named(
  z.object({
    daily: BudgetWindowView,
    monthly: BudgetWindowView,
    confirm_above_usd: z
      .nullable(z.number())
      .check(z.meta({ description: 'Paid calls estimated above this need a confirm token; null: none' })),
    warning_webhook_url: z
      .nullable(z.string())
      .check(z.meta({ description: "Where this site's budget warnings are POSTed; null: none" })),
  }),
  {
    id: 'Budget',
    description: "This site's spend limits and what its windows hold now",
  },
);
export type BudgetView = z.output<typeof BudgetView>;

/** What a paid tool result says of the budget: the least left of the windows with a limit. */
export const ToolBudget = z.object({
  // Declared on every tool result: kept short, as tools/list carries it in each result schema.
  remaining_usd: z.nullable(z.number()).check(z.meta({ description: 'limit − spent − reserved; null: no limit' })),
  window: z.nullable(z.enum(BUDGET_WINDOWS)),
});
export type ToolBudget = z.output<typeof ToolBudget>;

/** A reservation that outlives its call: queued work (a research job, a monitoring run) carries it to the worker that settles it. */
export const BudgetTicket = z.object({
  hold_id: z.string(),
  estimate_usd: z.number(),
  day: z.string().check(z.meta({ description: 'The UTC day it was reserved in: its windows' })),
  deployment: z.boolean().check(z.meta({ description: "Whether the deployment's daily cap holds it too" })),
  // Optional only for tickets taken before holds had items of their own (their holds need no key).
  lease_until: z.optional(
    z.number().check(z.meta({ description: 'When (epoch ms) its lease ends: the key of its reservation sorts by it' })),
  ),
});
export type BudgetTicket = z.output<typeof BudgetTicket>;

/** The levels of a window's use a site is warned at, in percent of its limit. */
export const BUDGET_WARNING_LEVELS = [80, 100] as const;

/**
 * A site's budget warning: what its webhook is POSTed (the `budget-warning` worker's message is the
 * same). `id` is the same on every delivery of one warning, for the receiver to ignore a repeat.
 */
export const BudgetWarning = z.object({
  type: z.literal('budget.warning'),
  id: z.string(),
  site_id: z.int(),
  window: z.enum(BUDGET_WINDOWS),
  period: z.string().check(z.meta({ description: 'The UTC day (yyyy-mm-dd) or month (yyyy-mm) of the window' })),
  level_pct: z.literal(BUDGET_WARNING_LEVELS),
  used_pct: z.number(),
  limit_usd: z.number(),
  spent_usd: z.number(),
  reserved_usd: z.number(),
  at: z.string(),
});
export type BudgetWarning = z.output<typeof BudgetWarning>;
