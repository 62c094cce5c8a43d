import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { isJsonObject } from '@cm/contract';
import type { Json } from './route-calls';

/*
 * What a 2026-07-28 request says its client can do: the capabilities it carries in its own `_meta`
 * (there is no initialize to remember them from), as the SDK hands them to a handler.
 */

/** The client capabilities of a request's `_meta` envelope (`ctx.mcpReq.envelope`); none when it carries none. */
export function clientCapabilitiesOf(envelope: unknown): Json {
  const capabilities = isJsonObject(envelope) ? envelope[CLIENT_CAPABILITIES_META_KEY] : undefined;
  return isJsonObject(capabilities) ? capabilities : {};
}
