import { ApiError, BREAKER } from '@cm/contract';
import type { ProviderGate } from '@cm/providers';
import type { BreakerSettings, BreakerState, BreakerStore } from '@cm/store';

export interface BreakerOptions {
  now: () => number;
  /** Told once, by the failure that opened (or reopened) a provider's breaker: the provider_breaker_opened metric. */
  opened?: (provider: string) => void;
  /** Told of each call refused because its provider's breaker is open: the provider_calls_refused metric. */
  refused?: (provider: string) => void;
  settings?: BreakerSettings & { probeMs: number; cacheMs: number };
}

/** What a function read of each breaker, and when: kept `cacheMs`, so a closed breaker costs one read per few seconds. */
const seen = new Map<string, { state: BreakerState; readAt: number }>();

/** Forgets what this container read of the breakers (tests that move the clock, or share a process between stacks). */
export const forgetBreakers = (): void => seen.clear();

/** `503 provider_unavailable`, answered at once while a provider's breaker is open. */
export function providerUnavailable(provider: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(
    'provider_unavailable',
    `${provider} is not answering; paid calls to it are refused for now; try again in ${seconds} s`,
    { provider, retry_after_ms: seconds * 1000 },
    { 'retry-after': String(seconds) },
  );
}

/**
 * The paid providers' circuit breakers, shared across functions through the store (one item per
 * provider). Closed, a call goes; open, it is refused at once (`503 provider_unavailable`), before
 * any budget is reserved or the provider called; after the cool-down one call probes the provider,
 * and its success closes the breaker, its failure opens it again.
 */
export class ProviderBreakers implements ProviderGate {
  private readonly settings: BreakerSettings & { probeMs: number; cacheMs: number };
  /** The providers this gate has the probe of: its next outcome decides the breaker. */
  private readonly probing = new Set<string>();

  constructor(
    private readonly breakers: BreakerStore,
    private readonly options: BreakerOptions,
  ) {
    this.settings = options.settings ?? BREAKER;
  }

  async admit(provider: string): Promise<void> {
    const now = this.options.now();
    const state = await this.state(provider, now);
    if (state.openUntil === null) return;
    const refuse = (retryAfterMs: number) => {
      this.options.refused?.(provider);
      return providerUnavailable(provider, retryAfterMs);
    };
    if (state.openUntil > now) throw refuse(state.openUntil - now);
    if (state.probeUntil !== null && state.probeUntil > now) throw refuse(state.probeUntil - now);
    // Half-open: one call, the one that takes the probe, tries the provider.
    const probe = await this.breakers.takeProbe(provider, now, this.settings.probeMs, state.openUntil);
    if (probe === null) {
      seen.delete(provider);
      throw refuse(this.settings.cacheMs);
    }
    this.probing.add(provider);
    seen.set(provider, { state: probe, readAt: now });
  }

  async report(provider: string, healthy: boolean): Promise<void> {
    const now = this.options.now();
    if (healthy) {
      // A closed breaker, as this container last saw it, is left alone: success costs no write.
      if (!this.probing.delete(provider) && (seen.get(provider)?.state.openUntil ?? null) === null) return;
      await this.breakers.close(provider, now);
      seen.delete(provider);
      return;
    }
    this.probing.delete(provider);
    const { opened, state } = await this.breakers.recordFailure(provider, now, this.settings);
    seen.set(provider, { state, readAt: now });
    if (opened) this.options.opened?.(provider);
  }

  private async state(provider: string, now: number): Promise<BreakerState> {
    const kept = seen.get(provider);
    if (kept && now - kept.readAt < this.settings.cacheMs && now >= kept.readAt) return kept.state;
    const state = await this.breakers.read(provider);
    seen.set(provider, { state, readAt: now });
    return state;
  }
}
