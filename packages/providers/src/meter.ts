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
  /** The ledger's pending line this call settles (written before the call): the call's line replaces it. */
  line?: string;
  /** Cut short after its request was sent: it may have been billed, so its line stays pending at its estimate. */
  pending?: true;
}

/** A paid call about to be made, as its pending line names it. */
export interface PaidCall {
  provider: string;
  endpoint: string;
}

/**
 * The usage ledger's pending lines: each paid call's line, written before the call at its estimate,
 * so a run that ends before it settles (a worker past its time) still leaves the call counted.
 */
export interface PendingLedger {
  /** Writes the call's line as pending at its estimate; answers the line's id, which the settled line keeps. */
  open(call: PaidCall & { cost_usd: number }): Promise<string>;
  /** Deletes a pending line whose open was made moot (its hold was refused): the call was never made. */
  release(line: string): Promise<void>;
}

/** A paid call's reservation: its hold on the budget and its pending line, each when there is one. */
export interface Reservation {
  hold: Hold | null;
  line: string | null;
}

/** The run's deadline passed: no paid call starts (one could not be settled in the time left). */
export class OutOfTime extends Error {
  constructor() {
    super("the run's deadline passed: no paid call starts that it could not settle");
    this.name = 'OutOfTime';
  }
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
   * Aborts when the run must end (the route's deadline, a worker's time less what settling takes): no
   * paid call starts after it, calls in flight stop at once, and what they reserved is settled before
   * the run answers, not left for the hold to expire.
   */
  signal?: AbortSignal;
  /** Writes each paid call's pending line before the call (the run's record settles it); none: lines are written after. */
  ledger?: PendingLedger;
}

/**
 * Collects the calls a request makes, so the ledger records each one even when the request fails; and
 * with a guard, reserves each paid call's estimate before the call and settles it to the bill after.
 */
export class Meter {
  readonly calls: ProviderCall[] = [];
  /** Pending lines whose call never reached the provider: the run's record deletes them. */
  readonly released: string[] = [];
  private readonly settling: Array<Promise<void>> = [];
  /** Reservations whose call is still in flight (neither recorded nor cancelled), and who waits for them to end. */
  private readonly inFlight = new Set<Reservation>();
  private ended: Array<() => void> = [];
  private ledger?: PendingLedger;

  constructor(private readonly options: MeterOptions = {}) {
    this.ledger = options.ledger;
  }

  /** Paid calls' pending lines go to `ledger` from now on: a worker knows whose calls they are once it has read its job. */
  writeLinesTo(ledger: PendingLedger): void {
    this.ledger = ledger;
  }

  /** The run's deadline, for the meters of work it hands out. */
  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  /** Whether the sandbox charges list prices on this meter. */
  get listPrices(): boolean {
    return this.options.listPrices === true;
  }

  /**
   * Before a paid call: none starts once the run is given up (OutOfTime); a real provider's call
   * (`gated`) is first admitted by its breaker (refused at once, with nothing reserved, while it is
   * open); then its estimate is held on the budget (nothing for a free call, or without a guard) and its
   * pending line written, together. Throws when the provider is down or the call does not fit the budget.
   */
  async reserve(estimateUsd: number, call: PaidCall, gated = true): Promise<Reservation | null> {
    if (this.abandoned) throw new OutOfTime();
    if (gated) await this.options.gate?.admit(call.provider);
    const { guard } = this.options;
    const { ledger } = this;
    if (estimateUsd <= 0 || (!guard && !ledger)) return null;
    // One write more per paid call, made beside the hold's, so the call waits no longer for it.
    const [hold, line] = await Promise.allSettled([
      guard ? guard.reserve(estimateUsd) : null,
      ledger ? ledger.open({ ...call, cost_usd: estimateUsd }) : null,
    ]);
    if (hold.status === 'rejected') {
      // Refused: the call is not made, so its pending line goes.
      if (line.status === 'fulfilled' && line.value !== null && ledger)
        this.settling.push(ledger.release(line.value).catch(() => undefined));
      throw hold.reason;
    }
    if (line.status === 'rejected') {
      this.settle(hold.value, 0, false);
      throw line.reason;
    }
    const reservation = { hold: hold.value, line: line.value };
    this.inFlight.add(reservation);
    return reservation;
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

  /** After a call: records it (in place of its pending line), and settles its hold to what it cost (a failed call's 0 cancels it). */
  record(call: ProviderCall, reservation: Reservation | null = null): void {
    this.calls.push(reservation?.line ? { ...call, line: reservation.line } : call);
    this.end(reservation, call.cost_usd, call.simulated === true);
  }

  /**
   * An answer the shared cache of public data gave instead of a provider call (another site paid for it
   * that day): a ledger line at 0, with no hold to settle and nothing for the provider's breaker.
   */
  recordCached(call: Pick<ProviderCall, 'provider' | 'endpoint'>): void {
    this.calls.push({ provider: call.provider, endpoint: call.endpoint, cost_usd: 0, cached: true });
  }

  /** After a call billed item by item (a post of many tasks): records each (the first in place of the pending line), and settles the hold to their sum. */
  recordEach(calls: readonly ProviderCall[], reservation: Reservation | null = null): void {
    const line = reservation?.line;
    this.calls.push(...calls.map((call, i) => (i === 0 && line ? { ...call, line } : call)));
    if (calls.length === 0 && line) this.released.push(line);
    this.end(
      reservation,
      roundUsd(calls.reduce((sum, call) => sum + call.cost_usd, 0)),
      calls.some((call) => call.simulated === true),
    );
  }

  /**
   * After a call that got no answer. Cut short (a timeout, the run's deadline) after its request was
   * sent, it may have reached the provider and been billed, and nothing says whether it was: it is
   * recorded pending at its estimate (`call.cost_usd`), its hold settled at it, so the ledger and the
   * budget count it as they count a run that died mid-call. Not sent, it is {@link cancel}led.
   */
  unanswered(call: ProviderCall, reservation: Reservation | null, sent: boolean): void {
    if (sent) this.record({ ...call, pending: true }, reservation);
    else this.cancel(reservation);
  }

  /** After a call that never reached the provider (nothing billed, nothing for the ledger): releases its pending line and cancels its hold. */
  cancel(reservation: Reservation | null): void {
    if (reservation?.line) this.released.push(reservation.line);
    this.end(reservation, 0, false);
  }

  /**
   * Waits until every reservation made so far is settled, those of calls still in flight included (a
   * run given up at its deadline aborts them, so they end at once): nothing a run reserved outlives it.
   */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await new Promise<void>((resolve) => this.ended.push(resolve));
    await Promise.all(this.settling);
  }

  private end(reservation: Reservation | null, billedUsd: number, simulated: boolean): void {
    if (!reservation) return;
    this.settle(reservation.hold, billedUsd, simulated);
    if (this.inFlight.delete(reservation) && this.inFlight.size === 0) {
      const waiting = this.ended;
      this.ended = [];
      for (const resolve of waiting) resolve();
    }
  }

  private settle(hold: Hold | null, billedUsd: number, simulated: boolean): void {
    // A settle that fails leaves its hold in place until it expires: it is then charged at its estimate.
    if (hold) this.settling.push(hold.settle(billedUsd, simulated).catch(() => undefined));
  }

  get costUsd(): number {
    return roundUsd(this.calls.reduce((sum, c) => sum + c.cost_usd, 0));
  }

  /** Whether any recorded cost is the sandbox's list price rather than billed money. */
  get simulated(): boolean {
    return this.calls.some((c) => c.simulated === true);
  }
}
