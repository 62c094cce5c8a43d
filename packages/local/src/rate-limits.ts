import type { IncomingMessage } from 'node:http';
import { ApiError, rateLimitedBody, type RateEndpoint, type RateRule } from '@cm/contract';

/**
 * WAF's rate-based rules, as the local servers apply them: the same rule definitions (RATE_RULES),
 * counted per rule and per key (the header's value) or address, in fixed windows of the rule's length
 * where WAF's window slides. A request over a rule's limit is answered `429 rate_limited` with the
 * Retry-After WAF's custom response carries, before any handler runs.
 */
export class RateLimiter {
  /** Requests counted per rule and key in the rule's current window. */
  private readonly counts = new Map<string, { window: number; count: number }>();
  private readonly rules: readonly RateRule[];

  constructor(
    rules: readonly RateRule[],
    endpoint: RateEndpoint,
    private readonly now: () => number = Date.now,
  ) {
    this.rules = rules.filter((rule) => rule.endpoint === endpoint);
  }

  /** The refusal of a request over one of the rules' limits (every rule that matches counts it), or null. */
  check(req: IncomingMessage, method: string, path: string): ApiError | null {
    let refused: RateRule | null = null;
    for (const rule of this.rules) {
      if (rule.routes && !rule.routes.some((route) => route.method === method && route.path === path)) continue;
      const key = rule.by === 'ip' ? req.socket.remoteAddress : headerOf(req, rule.by.header);
      // As WAF: a request without the key's header is not counted by that rule.
      if (key === undefined || key === '') continue;
      const window = Math.floor(this.now() / (rule.windowSeconds * 1000));
      const id = `${rule.name}\n${key}`;
      const seen = this.counts.get(id);
      const count = seen?.window === window ? seen.count + 1 : 1;
      this.counts.set(id, { window, count });
      if (count > rule.limit) refused ??= rule;
    }
    this.forgetPast();
    if (!refused) return null;
    const { message, retry_after_ms, error_description } = rateLimitedBody(refused);
    return new ApiError(
      'rate_limited',
      message,
      { retry_after_ms, error_description },
      {
        'retry-after': String(refused.windowSeconds),
      },
    );
  }

  /** Drops counts of windows that have ended, once there are many: a long-running stack keeps only the current ones. */
  private forgetPast(): void {
    if (this.counts.size < 10_000) return;
    for (const [id, seen] of this.counts) {
      const rule = this.rules.find((r) => id.startsWith(`${r.name}\n`));
      if (!rule || seen.window < Math.floor(this.now() / (rule.windowSeconds * 1000))) this.counts.delete(id);
    }
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
