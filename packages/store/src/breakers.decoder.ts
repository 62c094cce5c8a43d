import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A provider's circuit breaker: failures counted in a window, and the times of its open and half-open states. */

const BreakerItem = z.looseObject({
  failures: z.optional(z.int()),
  /** Epoch ms: when the window the failures count in began. */
  window_start: z.optional(z.number()),
  /** Epoch ms: open until then; past it the breaker is half-open until a probe closes it. */
  open_until: z.optional(z.number()),
  /** Epoch ms: a probe of the half-open breaker is in flight until then. */
  probe_until: z.optional(z.number()),
});

export const decodeBreaker = (item: Record<string, unknown>, key: Record<string, unknown>) =>
  decodeItem('breaker', BreakerItem, item, key);
