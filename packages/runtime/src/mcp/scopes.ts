import { ApiError, isJsonObject, isMcpToolName, scopeOfTool, type OAuthScope } from '@cm/contract';
import { insufficientScope } from '../bearer';
import { baseUrlOf } from '../http/request';
import type { Caller } from './route-calls';

/*
 * An OAuth caller's step-up (MCP's authorization): a call whose tool needs a scope the token was not
 * granted is refused 403 insufficient_scope before it runs, with a challenge that asks for it. Read from
 * the POST's JSON-RPC messages, so it loads with the server, not at cold start.
 */

/** The scopes the messages of a POST body ask for: each tool call its tool's, each task method research's. */
function scopesAsked(body: unknown): OAuthScope[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m): OAuthScope[] => {
    if (!isJsonObject(m) || typeof m.method !== 'string') return [];
    if (m.method.startsWith('tasks/')) return ['research'];
    const name = m.method === 'tools/call' && isJsonObject(m.params) ? m.params.name : undefined;
    return isMcpToolName(name) ? [scopeOfTool(name)] : [];
  });
}

/** The refusal of a token's call it has no scope for; null when it may make it (or the caller has a key). */
export function scopeRefusal(caller: Caller, body: unknown): ApiError | null {
  const granted = caller.scopes;
  if (!granted) return null;
  const missing = scopesAsked(body).find((scope) => !granted.includes(scope));
  return missing ? insufficientScope(baseUrlOf(caller.event), { scopes: granted, resource: 'mcp' }, missing) : null;
}
