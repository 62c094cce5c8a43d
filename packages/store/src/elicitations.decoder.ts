import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A question the MCP server asked a client by elicitation, and the client's answer once it came. */

export const ElicitationAction = z.enum(['accept', 'decline', 'cancel']);
export type ElicitationAction = z.infer<typeof ElicitationAction>;

const ElicitationItem = z.looseObject({
  /** Epoch ms: an answer after it is refused, and nobody waits for it any more. */
  expires_ms: z.number(),
  action: z.optional(ElicitationAction),
});
export type ElicitationItem = z.infer<typeof ElicitationItem>;

export const decodeElicitation = (item: Record<string, unknown>, key: Record<string, unknown>): ElicitationItem =>
  decodeItem('elicitation', ElicitationItem, item, key);
