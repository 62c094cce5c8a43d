import { randomBytes } from 'node:crypto';
import {
  ApiError,
  DEFAULT_BUDGETS,
  LIMITS,
  roundUsd,
  type BudgetTicket,
  type BudgetView,
  type BudgetWarning,
  type BudgetWindow,
  type ToolBudget,
} from '@cm/contract';
import {
  Bug,
  monthStart,
  nextUtcMidnight,
  utcDay,
  warnedAlready,
  warningLevel,
  warningMark,
  warningPeriod,
} from '@cm/core';
import type { Hold, SpendGuard } from '@cm/providers';
import type { BudgetLimits, BudgetSettings, HoldRef, SpendScope, Store, WindowState, Windows } from '@cm/store';

const resetsAt = (window: BudgetWindow, now: Date): string =>
  window === 'day' ? nextUtcMidnight(now) : monthStart(now, -1).toISOString();
const WINDOW_LIMIT = { day: 'daily_usd', month: 'monthly_usd' } as const;

/** A window's share of its limit spent and reserved, in percent to a tenth: the metric's, and a warning's. */
const usedPctOf = (limit: number, state: WindowState): number =>
  limit > 0 ? Math.round(((state.spent + state.reserved) / limit) * 1000) / 10 : 100;

/** The tightest window with a limit: what it has left, and its share used in percent. */
function tightest(limits: BudgetLimits, windows: Windows): (ToolBudget & { used_pct: number }) | null {
  let best: { remaining_usd: number; window: BudgetWindow; used_pct: number } | null = null;
  for (const window of ['day', 'month'] as const) {
    const limit = limits[WINDOW_LIMIT[window]];
    const state = windows[window];
    if (limit === null || !state) continue;
    const remaining = roundUsd(Math.max(0, limit - state.spent - state.reserved));
    if (!best || remaining < best.remaining_usd)
      best = { remaining_usd: remaining, window, used_pct: usedPctOf(limit, state) };
  }
  return best;
}

function budgetExceeded(window: BudgetWindow, now: Date, site: { limit: number; state: WindowState } | null): ApiError {
  const when = resetsAt(window, now);
  if (!site) {
    // The deployment's cap sums every site's spend: a site is told it is reached, never what others spent.
    return new ApiError('budget_exceeded', `The deployment's daily provider budget is used up; it resets at ${when}`, {
      scope: 'deployment',
      window,
      limit_usd: null,
      spent_usd: null,
      resets_at: when,
    });
  }
  return new ApiError(
    'budget_exceeded',
    `This call would pass the site's ${window === 'day' ? 'daily' : 'monthly'} budget of $${site.limit}; it resets at ${when} (GET /v1/budget; PUT /v1/budget changes it)`,
    {
      scope: 'site',
      window,
      limit_usd: site.limit,
      spent_usd: site.state.spent,
      reserved_usd: site.state.reserved,
      resets_at: when,
    },
  );
}

/**
 * What the daily schedule's work (monitoring and rank runs) may spend of a deployment's daily cap of
 * `capUsd`: all but DEFAULT_BUDGETS.scheduleReservePct, which is kept for the sites' own calls.
 */
export const scheduledCapUsd = (capUsd: number): number =>
  roundUsd((capUsd * (100 - DEFAULT_BUDGETS.scheduleReservePct)) / 100);

export interface BudgetOptions {
  /** The deployment's daily cap in USD (GLOBAL_DAILY_BUDGET_USD); null: none. */
  deploymentDailyUsd: number | null;
  now: () => Date;
  /** Reports the share of the budget used after each reservation and settle (the budget_usd_used_pct metric). */
  measure?: (usedPct: number) => void;
  /**
   * Sends a site's budget warning to its webhook (the budget-warning queue); called once per warning,
   * after the warning was claimed. A warning it cannot send must not fail the paid call that crossed it.
   */
  warn?: (warning: BudgetWarning) => Promise<void>;
  /**
   * The budget of the daily schedule's work (a site's monitoring or rank run): it may take the
   * deployment's cap less the share kept for callers (scheduledCapUsd), and `stopped` hears of each
   * reservation refused for it.
   */
  scheduled?: { stopped: () => void };
}

/**
 * A site's budget as paid calls spend it: each reservation is taken on the site's counter (its day and
 * month windows at once) and, with a deployment cap, on the deployment's day, together; a refusal of
 * either undoes the other and is 402 budget_exceeded before any provider is called. Settling gives
 * both back, with the bill.
 */
export class SiteBudget implements SpendGuard {
  private limitsRead?: Promise<BudgetLimits>;
  /** What the site's windows held after the latest reservation or settle of this budget. */
  private latest: Windows | null = null;

  constructor(
    private readonly store: Store,
    private readonly siteId: number,
    private readonly options: BudgetOptions,
  ) {}

  /** The site's limits, read once per budget (a tool call, a worker run). */
  limits(): Promise<BudgetLimits> {
    this.limitsRead ??= this.store.budgets.limits(this.siteId).catch((error: unknown) => {
      this.limitsRead = undefined;
      throw error;
    });
    return this.limitsRead;
  }

  /** A paid call's hold, kept for the longest a call runs. */
  async reserve(estimateUsd: number): Promise<Hold> {
    const ticket = await this.take(estimateUsd, LIMITS.budgetHoldMs);
    return { settle: (billed, simulated) => this.settle(ticket, billed, simulated) };
  }

  /** Queued work's reservation, made when it is accepted and settled by the worker that runs it; null when free. */
  async reserveQueued(estimateUsd: number): Promise<BudgetTicket | null> {
    return estimateUsd > 0 ? this.take(estimateUsd, LIMITS.queuedBudgetHoldMs) : null;
  }

  /** Settles a hold to what its work was billed (0 cancels it). */
  async settle(ticket: BudgetTicket, billedUsd: number, simulated: boolean): Promise<void> {
    const site = await settleTicket(this.store, this.siteId, ticket, billedUsd, simulated);
    // Windows of an earlier day or month are not the ones results report.
    if (ticket.day === utcDay(this.options.now())) await this.observe(site);
  }

  /** What paid results say of the budget: the tightest window's remainder; null before any paid call. */
  async view(): Promise<ToolBudget | null> {
    if (!this.latest) return null;
    const tight = tightest(await this.limits(), this.latest);
    return tight ? { remaining_usd: tight.remaining_usd, window: tight.window } : { remaining_usd: null, window: null };
  }

  /** What the tightest window has left now (one read of the site's windows): an estimate's budget. */
  async current(): Promise<ToolBudget> {
    const [limits, windows] = await Promise.all([
      this.limits(),
      this.store.budgets.windows({ siteId: this.siteId }, utcDay(this.options.now())),
    ]);
    const tight = tightest(limits, windows);
    return tight ? { remaining_usd: tight.remaining_usd, window: tight.window } : { remaining_usd: null, window: null };
  }

  private async take(estimateUsd: number, holdMs: number): Promise<BudgetTicket> {
    const now = this.options.now();
    const day = utcDay(now);
    const limits = await this.limits();
    const cap = this.options.deploymentDailyUsd;
    const hold: HoldRef = { id: randomBytes(9).toString('hex'), expiresAt: Date.now() + holdMs };
    const { budgets } = this.store;
    if (this.options.scheduled && cap !== null) await this.withinScheduledShare(day, cap, estimateUsd, now);
    const [site, deployment] = await Promise.all([
      budgets.reserve({ siteId: this.siteId }, day, hold, estimateUsd, {
        day: limits.daily_usd,
        month: limits.monthly_usd,
      }),
      cap === null ? null : budgets.reserve('deployment', day, hold, estimateUsd, { day: cap }),
    ]);
    const ticket: BudgetTicket = {
      hold_id: hold.id,
      estimate_usd: estimateUsd,
      day,
      deployment: cap !== null,
      lease_until: hold.expiresAt, // the ticket's stored name for when its hold expires
    };
    if (site.reserved && deployment?.reserved !== false) {
      await this.observe(site.windows);
      return ticket;
    }
    // Compensation: one counter took the hold and the other refused it, so the taken one is cancelled.
    if (site.reserved) await budgets.settle({ siteId: this.siteId }, day, hold, 0, false);
    if (deployment?.reserved) await budgets.settle('deployment', day, hold, 0, false);
    if (!site.reserved) {
      // A refused call means the site's budget is used up as far as its agent can tell: the 100% alarm fires.
      this.options.measure?.(100);
      await this.warnOf(limits, day, site.window, 100, site.state);
      const limit = limits[WINDOW_LIMIT[site.window]];
      if (limit === null) throw new Bug(`the ${site.window} window refused a reservation without a limit`);
      throw budgetExceeded(site.window, now, { limit, state: site.state });
    }
    this.options.scheduled?.stopped();
    throw budgetExceeded('day', now, null);
  }

  /**
   * The scheduled work's line short of the cap, read before its reservation: the deployment's day is
   * counted on shards whose room follows the cap they are reserved under, so a line of its own is
   * checked on the day's sum (one read). Scheduled runs reserving at the same moment may pass it by
   * their own estimates; the cap itself stays exact.
   */
  private async withinScheduledShare(day: string, cap: number, estimateUsd: number, now: Date): Promise<void> {
    const today = (await this.store.budgets.windows('deployment', day)).day;
    const used = (today?.spent ?? 0) + (today?.reserved ?? 0);
    if (roundUsd(used + estimateUsd) <= scheduledCapUsd(cap)) return;
    this.options.scheduled?.stopped();
    throw budgetExceeded('day', now, null);
  }

  private async observe(windows: Windows): Promise<void> {
    this.latest = windows;
    const limits = await this.limits();
    const tight = tightest(limits, windows);
    if (tight) this.options.measure?.(tight.used_pct);
    const day = utcDay(this.options.now());
    for (const window of ['day', 'month'] as const) {
      const limit = limits[WINDOW_LIMIT[window]];
      const state = windows[window];
      if (limit !== null && state) await this.warnOf(limits, day, window, usedPctOf(limit, state), state);
    }
  }

  /**
   * The site's budget warning of a window at `usedPct`, when it has a webhook and the level reached was
   * not warned of yet in the window's period: claimed once on the site's budget item, then sent. What
   * this budget read of the marks (with its limits) spares a write on every later call of the period.
   */
  private async warnOf(
    limits: BudgetLimits,
    day: string,
    window: BudgetWindow,
    usedPct: number,
    state: WindowState,
  ): Promise<void> {
    const level = warningLevel(usedPct);
    const { warn } = this.options;
    if (level === null || !warn) return;
    const limit = limits[WINDOW_LIMIT[window]];
    if (limits.warning_webhook_url === null || limit === null) return;
    const period = warningPeriod(window, day);
    const mark = warningMark(period, level);
    if (warnedAlready(limits.warned[window], mark)) return;
    limits.warned[window] = mark;
    if (!(await this.store.budgets.claimWarning(this.siteId, window, mark))) return;
    await warn({
      type: 'budget.warning',
      id: `${this.siteId}:${window}:${mark}`,
      site_id: this.siteId,
      window,
      period,
      level_pct: level,
      used_pct: usedPct,
      limit_usd: limit,
      spent_usd: roundUsd(state.spent),
      reserved_usd: roundUsd(state.reserved),
      at: this.options.now().toISOString(),
    });
  }
}

/**
 * Settles `ticket` on the site's counter and, when it has a hold on the deployment's too, on that one: what
 * the site's windows count then. A settle after the hold was dropped still adds what was billed.
 */
export async function settleTicket(
  store: Store,
  siteId: number,
  ticket: BudgetTicket,
  billedUsd: number,
  simulated: boolean,
): Promise<Windows> {
  // A ticket taken before holds had items of their own has no expiry: no hold item is found, the bill is added.
  const hold: HoldRef = { id: ticket.hold_id, expiresAt: ticket.lease_until ?? 0 };
  const [site] = await Promise.all([
    store.budgets.settle({ siteId }, ticket.day, hold, billedUsd, simulated),
    ticket.deployment ? store.budgets.settle('deployment', ticket.day, hold, billedUsd, simulated) : null,
  ]);
  return site;
}

/** GET /v1/budget: the site's limits and what its windows of now count. */
export async function budgetView(store: Store, siteId: number, now: Date, limits?: BudgetLimits): Promise<BudgetView> {
  const [known, windows] = await Promise.all([
    limits ?? store.budgets.limits(siteId),
    store.budgets.windows({ siteId } satisfies SpendScope, utcDay(now)),
  ]);
  const view = (window: BudgetWindow) => {
    const state = windows[window] ?? { spent: 0, reserved: 0, simulated: 0 };
    return {
      limit_usd: known[WINDOW_LIMIT[window]],
      spent_usd: state.spent,
      reserved_usd: state.reserved,
      simulated_usd: state.simulated,
      resets_at: resetsAt(window, now),
    };
  };
  return {
    daily: view('day'),
    monthly: view('month'),
    confirm_above_usd: known.confirm_above_usd,
    warning_webhook_url: known.warning_webhook_url,
  };
}

/** PUT /v1/budget: sets the limits given, then answers as GET does. */
export async function setBudget(
  store: Store,
  siteId: number,
  change: Partial<BudgetSettings>,
  now: Date,
): Promise<BudgetView> {
  const limits = await store.budgets.setLimits(siteId, change, now.toISOString());
  return budgetView(store, siteId, now, limits);
}

const isBudgetExceeded = (error: unknown) => error instanceof ApiError && error.code === 'budget_exceeded';

/**
 * Queued work of `wanted` like items at `unitUsd` each (a day's rank checks), as many as the budget has
 * room for, reserved as one: all of them, else (after one read of what the tightest window has left) as
 * many as that covers, else none.
 */
export async function reserveWhatFits(
  budget: SiteBudget,
  unitUsd: number,
  wanted: number,
): Promise<{ ticket: BudgetTicket | null; count: number }> {
  try {
    return { ticket: await budget.reserveQueued(roundUsd(unitUsd * wanted)), count: wanted };
  } catch (error) {
    if (!isBudgetExceeded(error)) throw error;
  }
  const room = (await budget.current()).remaining_usd;
  const count = room === null ? 0 : Math.min(wanted - 1, Math.floor(room / unitUsd + 1e-9));
  if (count <= 0) return { ticket: null, count: 0 };
  try {
    return { ticket: await budget.reserveQueued(roundUsd(unitUsd * count)), count };
  } catch (error) {
    if (!isBudgetExceeded(error)) throw error;
    return { ticket: null, count: 0 };
  }
}
