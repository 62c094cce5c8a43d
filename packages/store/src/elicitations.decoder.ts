import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A question the MCP server asked a client by elicitation, and the client's answer once it came. */

/** The user's action (MCP's), or `error`: the client answered with an error, so nobody was asked. */
export const ElicitationAction = z.enum(['accept', 'decline', 'cancel', 'error']);
export type ElicitationAction = z.infer<typeof ElicitationAction>;

const ElicitationItem = z.looseObject({
  /** Epoch ms: an answer after it is refused, and nobody waits for it any more. */
  expires_ms: z.number(),
  action: z.optional(ElicitationAction),
  /** Set when the call stopped waiting: an answer after it is refused. */
  closed_at: z.optional(z.string()),
});
export type ElicitationItem = z.infer<typeof ElicitationItem>;

export const decodeElicitation = (item: Record<string, unknown>, key: Record<string, unknown>): ElicitationItem =>
  decodeItem('elicitation', ElicitationItem, item, key);
