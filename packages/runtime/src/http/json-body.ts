import type middy from '@middy/core';
import { ApiError, bodyLimitOf, ROUTE_TABLE, routeKey, SERVICE_LIMITS } from '@cm/contract';
import { payloadTooLarge } from './errors';
import type { ApiEvent, ApiResult, State } from './request';

/** Whether JSON text nests arrays and objects deeper than `max` levels: one pass over the text, no recursion. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the character after it.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** JSON text nested deeper than `jsonDepthMax` is refused (400 validation_failed) before anything walks it, JSON.parse included. */
export function refuseDeepJson(text: string): void {
  const max = SERVICE_LIMITS.jsonDepthMax;
  if (!nestsDeeperThan(text, max)) return;
  const message = `nests arrays and objects deeper than ${max} levels`;
  throw new ApiError('validation_failed', `body: ${message}`, { issues: [{ path: '', message }] });
}

/** Each route's body limit, by route key: looked up on every request with a body. */
const BODY_LIMITS = new Map(ROUTE_TABLE.map((route) => [routeKey(route), bodyLimitOf(route)]));

/**
 * Reads the body as JSON: over the route's limit → 413, nested deeper than `jsonDepthMax` → 400
 * validation_failed before anything walks it (JSON.parse included), not JSON → 400 invalid_json.
 */
export const jsonBody = (state: WeakMap<ApiEvent, State>, json: boolean): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  before: async ({ event }) => {
    if (event.body === undefined || event.body === null || event.body === '') return;
    const limitBytes = BODY_LIMITS.get(event.routeKey) ?? bodyLimitOf(undefined);
    const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
    if (raw.length > limitBytes) throw payloadTooLarge(limitBytes, raw.length);
    // A route that reads its own body (a form) has only its limit checked.
    if (!json) return;
    // A UTF-8 byte-order mark before the JSON text is ignored (RFC 8259 §8.1 lets a parser do so).
    const text = raw.toString('utf8').replace(/^\uFEFF/, '');
    refuseDeepJson(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'The body is not valid JSON');
    }
    state.set(event, { ...state.get(event), jsonBody: parsed });
  },
});
