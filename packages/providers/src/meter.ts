import { roundUsd } from '@cm/contract';
import { timeLimit, type TimeLimit } from './time-limit';

/* The meter: a request's provider calls, for the usage ledger, and each paid call's hold on the budget. */

/** One call to a provider, as the usage ledger records it; a free or failed-unbilled call costs 0. */
export interface ProviderCall {
  provider: string;
  endpoint: string;
  cost_usd: number;
  /** The sandbox charging list prices (SANDBOX_LIST_PRICES=1): no money was billed. */
  simulated?: boolean;
  /** Answered from the shared cache of public data: another site's call paid for it, so this one costs 0. */
  cached?: true;
}

/** A hold: a paid call's estimate, set aside from the budget before the call; settled to its bill after it. */
export interface Hold {
  settle(billedUsd: number, simulated: boolean): Promise<void>;
}

/**
 * The budget a meter spends from: `reserve` places a hold of a paid call's estimate before the call is made, or
 * throws (402 budget_exceeded) when it does not fit, so no provider is called.
 */
export interface SpendGuard {
  reserve(estimateUsd: number): Promise<Hold>;
}

/**
 * The paid providers' shared health (their circuit breakers): a call is admitted before it reserves
 * anything, and each attempt's outcome is reported.
 */
export interface ProviderGate {
  /** Resolves when `provider` may be called; throws (503 provider_unavailable) while its breaker is open. */
  admit(provider: string): Promise<void>;
  /** How an attempt went: unhealthy is a timeout, no connection or a 5xx; healthy is any answer of the provider's own. */
  report(provider: string, healthy: boolean): Promise<void>;
}

export interface MeterOptions {
  /** Reserves each paid call's estimate before the call; none: calls are only recorded (queued work reserved when it was accepted). */
  guard?: SpendGuard;
  /** The sandbox charges the real providers' list prices, marked simulated (SANDBOX_LIST_PRICES=1). */
  listPrices?: boolean;
  /** Admits each paid call to a provider whose breaker is closed, and hears how it went; none: every call goes. */
  gate?: ProviderGate;
  /**
   * Aborts when the run must end (the route's deadline): calls in flight stop at once, and what they
   * reserved is cancelled before the run answers, not left for the hold to expire.
   */
  signal?: AbortSignal;
}

/**
 * Collects the calls a request makes, so the ledger records each one even when the request fails; and
 * with a guard, reserves each paid call's estimate before the call and settles it to the bill after.
 */
export class Meter {
  readonly calls: ProviderCall[] = [];
  private readonly settling: Array<Promise<void>> = [];
  /** Reservations whose call is still in flight (neither recorded nor cancelled), and who waits for them to end. */
  private readonly inFlight = new Set<Hold>();
  private ended: Array<() => void> = [];

  constructor(private readonly options: MeterOptions = {}) {}

  /** Whether the sandbox charges list prices on this meter. */
  get listPrices(): boolean {
    return this.options.listPrices === true;
  }

  /**
   * Before a paid call: a real provider's call is first admitted by its breaker (refused at once, with
   * nothing reserved, while it is open); then its estimate is reserved (nothing for a free call, or
   * without a guard). Throws when the provider is down or the call does not fit the budget.
   */
  async reserve(estimateUsd: number, provider?: string): Promise<Hold | null> {
    if (provider !== undefined) await this.options.gate?.admit(provider);
    if (!this.options.guard || estimateUsd <= 0) return null;
    const hold = await this.options.guard.reserve(estimateUsd);
    this.inFlight.add(hold);
    return hold;
  }

  /** After an attempt: tells the provider's breaker how it went (a failed report is dropped: the call's outcome stands). */
  report(provider: string, healthy: boolean): void {
    if (this.options.gate) this.settling.push(this.options.gate.report(provider, healthy).catch(() => undefined));
  }

  /** Whether the run this meter belongs to has been given up (its deadline passed): no new attempt starts. */
  get abandoned(): boolean {
    return this.options.signal?.aborted === true;
  }

  /** The time limit of one attempt: it aborts after `timeoutMs`, or when the run is given up; clear it when the attempt ends. */
  attemptLimit(timeoutMs: number): TimeLimit {
    return timeLimit(timeoutMs, this.options.signal);
  }

  /** After a call: records it, and settles its reservation to what it cost (a failed call's 0 cancels it). */
  record(call: ProviderCall, hold: Hold | null = null): void {
    this.calls.push(call);
    this.settle(hold, call.cost_usd, call.simulated === true);
  }

  /**
   * An answer the shared cache of public data gave instead of a provider call (another site paid for it
   * that day): a ledger line at 0, with no hold to settle and nothing for the provider's breaker.
   */
  recordCached(call: Pick<ProviderCall, 'provider' | 'endpoint'>): void {
    this.calls.push({ provider: call.provider, endpoint: call.endpoint, cost_usd: 0, cached: true });
  }

  /** After a call billed item by item (a post of many tasks): records each, and settles its reservation to their sum. */
  recordEach(calls: readonly ProviderCall[], hold: Hold | null = null): void {
    this.calls.push(...calls);
    this.settle(
      hold,
      roundUsd(calls.reduce((sum, call) => sum + call.cost_usd, 0)),
      calls.some((call) => call.simulated === true),
    );
  }

  /** After a call that never reached the provider (nothing billed, nothing for the ledger): cancels its hold (settles it to 0). */
  cancel(hold: Hold | null): void {
    this.settle(hold, 0, false);
  }

  /**
   * Waits until every reservation made so far is settled, those of calls still in flight included (a
   * run given up at its deadline aborts them, so they end at once): nothing a run reserved outlives it.
   */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await new Promise<void>((resolve) => this.ended.push(resolve));
    await Promise.all(this.settling);
  }

  private settle(hold: Hold | null, billedUsd: number, simulated: boolean): void {
    if (!hold) return;
    // A settle that fails leaves its hold in place until it expires, when the next refused call drops it.
    this.settling.push(hold.settle(billedUsd, simulated).catch(() => undefined));
    if (this.inFlight.delete(hold) && this.inFlight.size === 0) {
      const waiting = this.ended;
      this.ended = [];
      for (const resolve of waiting) resolve();
    }
  }

  get costUsd(): number {
    return roundUsd(this.calls.reduce((sum, c) => sum + c.cost_usd, 0));
  }

  /** Whether any recorded cost is the sandbox's list price rather than billed money. */
  get simulated(): boolean {
    return this.calls.some((c) => c.simulated === true);
  }
}
