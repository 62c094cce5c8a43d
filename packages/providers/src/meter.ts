import { roundUsd } from '@cm/contract';

/* The meter: a request's provider calls, for the usage ledger, and each paid call's reservation against the budget. */

/** One call to a provider, as the usage ledger records it; a free or failed-unbilled call costs 0. */
export interface ProviderCall {
  provider: string;
  endpoint: string;
  cost_usd: number;
  /** The sandbox charging list prices (SANDBOX_LIST_PRICES=1): no money was billed. */
  simulated?: boolean;
}

/** A paid call's estimate, reserved against the budget before the call; settled to its bill after it. */
export interface Hold {
  settle(billedUsd: number, simulated: boolean): Promise<void>;
}

/**
 * The budget a meter spends from: `reserve` holds a paid call's estimate before the call is made, or
 * throws (402 budget_exceeded) when it does not fit, so no provider is called.
 */
export interface SpendGuard {
  reserve(estimateUsd: number): Promise<Hold>;
}

export interface MeterOptions {
  /** Reserves each paid call's estimate before the call; none: calls are only recorded (queued work reserved when it was accepted). */
  guard?: SpendGuard;
  /** The sandbox charges the real providers' list prices, marked simulated (SANDBOX_LIST_PRICES=1). */
  listPrices?: boolean;
}

/**
 * Collects the calls a request makes, so the ledger records each one even when the request fails; and
 * with a guard, reserves each paid call's estimate before the call and settles it to the bill after.
 */
export class Meter {
  readonly calls: ProviderCall[] = [];
  private readonly settling: Array<Promise<void>> = [];

  constructor(private readonly options: MeterOptions = {}) {}

  /** Whether the sandbox charges list prices on this meter. */
  get listPrices(): boolean {
    return this.options.listPrices === true;
  }

  /** Before a paid call: reserves its estimate (nothing for a free call, or without a guard); throws when it does not fit the budget. */
  async reserve(estimateUsd: number): Promise<Hold | null> {
    return this.options.guard && estimateUsd > 0 ? this.options.guard.reserve(estimateUsd) : null;
  }

  /** After a call: records it, and settles its reservation to what it cost (a failed call's 0 releases it). */
  record(call: ProviderCall, hold: Hold | null = null): void {
    this.calls.push(call);
    // A settle that fails leaves its reservation held until its lease ends, when the next refused call reclaims it.
    if (hold) this.settling.push(hold.settle(call.cost_usd, call.simulated === true).catch(() => undefined));
  }

  /** After a call that never reached the provider (nothing billed, nothing for the ledger): frees its reservation. */
  release(hold: Hold | null): void {
    if (hold) this.settling.push(hold.settle(0, false).catch(() => undefined));
  }

  /** Waits until every reservation recorded so far is settled. */
  async settled(): Promise<void> {
    await Promise.all(this.settling);
  }

  get costUsd(): number {
    return roundUsd(this.calls.reduce((sum, c) => sum + c.cost_usd, 0));
  }

  /** Whether any recorded cost is the sandbox's list price rather than billed money. */
  get simulated(): boolean {
    return this.calls.some((c) => c.simulated === true);
  }
}
