import { isIP } from 'node:net';
import { addressRefusal, hostRefusal } from '@cm/core';
import type { ToolContext } from '../context';

/* url mode's refusal at the call: a URL whose host is not public is refused before any work. */

/** How long url mode waits at the call for its host's addresses; a slower lookup is left to the worker's check. */
const RESOLVE_WAIT_MS = 3_000;

/** The host's addresses, or null when the lookup fails or takes longer than RESOLVE_WAIT_MS. */
async function addressesWithin(ctx: ToolContext, host: string): Promise<string[] | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ctx.resolveHost(host),
      new Promise<null>((resolve) => (timer = setTimeout(resolve, RESOLVE_WAIT_MS, null))),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What url mode can refuse at the call, by the worker's own address policy: a private literal or
 * name, or a name that resolves (DNS or the hosts file) to any address that is not public. A name
 * that resolves to nothing, or whose lookup fails, is left to the worker, which checks every name
 * again when it connects: that check is the one that protects, and the sandbox never fetches.
 */
export async function urlRefusal(ctx: ToolContext, url: string): Promise<string | null> {
  const host = new URL(url).hostname;
  const refusal = hostRefusal(host);
  if (refusal || isIP(host.replace(/^\[|\]$/g, ''))) return refusal;
  const addresses = await addressesWithin(ctx, host);
  return addresses?.length ? addressRefusal(host, addresses) : null;
}
