import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* Confirm tokens: a paid call's approval, for one tool and input, until it expires or is used. */

const ConfirmItem = z.looseObject({
  tool: z.string(),
  input_hash: z.string(),
  approved_usd: z.number(),
  /** Epoch ms: the token is refused from then on. */
  expires_ms: z.number(),
  used_at: z.optional(z.string()),
});
export type ConfirmItem = z.infer<typeof ConfirmItem>;

export const decodeConfirm = (item: Record<string, unknown>, key: Record<string, unknown>): ConfirmItem =>
  decodeItem('confirm token', ConfirmItem, item, key);
