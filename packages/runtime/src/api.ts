import { ApiError, routeKey, type FunctionName } from '@cm/contract';
import { routeHandler, routesOf, type ApiEvent, type Authenticate, type Handlers, type State } from './http';
import { observationOf } from './observability';
import { getSites } from './services';

/**
 * Positive key lookups are kept briefly per container, so a warm request costs no extra round trip;
 * briefly, so a revoked key (or one of a site that is gone) stops working within seconds everywhere.
 */
export const KEY_CACHE_MS = 5_000;
const keyCache = new Map<string, { site: KeySite; until: number }>();

/** The site an API key is good for, and the domain its pages are served at (null: under the deployment's address). */
interface KeySite {
  siteId: number;
  servedDomain: string | null;
}

async function keySiteOf(apiKey: string): Promise<KeySite | null> {
  const now = Date.now();
  const hit = keyCache.get(apiKey);
  if (hit && hit.until > now) return hit.site;
  const grant = await getSites().lookupKey(apiKey, now);
  if (grant === null) {
    keyCache.delete(apiKey);
    return null;
  }
  const site = { siteId: grant.site_id, servedDomain: grant.served_domain };
  // A key in a rotation's grace period is kept no longer than the grace lasts.
  keyCache.set(apiKey, { site, until: Math.min(now + KEY_CACHE_MS, grant.valid_until ?? Infinity) });
  return site;
}

export async function siteOfKey(apiKey: string): Promise<number | null> {
  return (await keySiteOf(apiKey))?.siteId ?? null;
}

/** The API key check of authenticated routes: `401` without a valid key, else the request's site is the key's. */
const apiKeyAuth =
  (state: WeakMap<ApiEvent, State>, authenticated: ReadonlySet<string>): Authenticate =>
  async (event, context) => {
    if (!authenticated.has(event.routeKey)) return;
    const apiKey = event.headers['x-api-key'];
    if (!apiKey) throw new ApiError('unauthorized', 'The X-API-Key header is missing');
    const site = await keySiteOf(apiKey);
    if (site === null) throw new ApiError('unauthorized', 'The API key is not valid');
    observationOf(context).keys({ site_id: site.siteId });
    state.set(event, { ...state.get(event), siteId: site.siteId, servedDomain: site.servedDomain });
  };

/**
 * A Lambda handler for the routes of one function of the route table: errors and JSON bodies as middy
 * middlewares, then API-key auth and the route's handler within the route's deadline.
 */
export function api(fn: FunctionName, handlers: Handlers) {
  const state = new WeakMap<ApiEvent, State>();
  const authenticated = new Set(
    routesOf(fn, handlers)
      .filter((r) => r.auth)
      .map(routeKey),
  );
  return routeHandler(handlers, state, apiKeyAuth(state, authenticated));
}
