import { ApiError, routeKey, scopeOfRoute, type FunctionName, type OAuthScope } from '@cm/contract';
import { bearerOf, insufficientScope, ownerOfToken, tokenRequired } from './bearer';
import { baseUrlOf, type ApiEvent, type State } from './http/request';
import { routeHandler, routesOf, type Authenticate, type Handlers } from './http/router';
import { observationOf } from './observability';
import { getSites } from './services';

/**
 * Positive key lookups are kept briefly per container, so a warm request costs no extra round trip;
 * briefly, so a revoked key (or one of a site that is gone) stops working within seconds everywhere.
 */
export const KEY_CACHE_MS = 5_000;
const keyCache = new Map<string, { site: KeySite; until: number }>();
/** Lookups under way: a burst of requests of a key not yet cached waits on one, not one each. */
const keyLookups = new Map<string, Promise<KeySite | null>>();

/** The site an API key is good for, and the domain its pages are served at (null: under the deployment's address). */
interface KeySite {
  siteId: number;
  servedDomain: string | null;
}

/** Forget the keys looked up, so the next request of each looks its key up again (and keeps it KEY_CACHE_MS from then). */
export function forgetKeyLookups(): void {
  keyCache.clear();
  keyLookups.clear();
}

async function keySiteOf(apiKey: string): Promise<KeySite | null> {
  const now = Date.now();
  const hit = keyCache.get(apiKey);
  if (hit && hit.until > now) return hit.site;
  const pending = keyLookups.get(apiKey);
  if (pending) return pending;
  const lookup = lookUpKey(apiKey, now).finally(() => keyLookups.delete(apiKey));
  keyLookups.set(apiKey, lookup);
  return lookup;
}

async function lookUpKey(apiKey: string, now: number): Promise<KeySite | null> {
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

/**
 * The caller's site on authenticated routes: by the API key (`X-API-Key`), exactly as before OAuth, or
 * on a route that takes them by an OAuth access token with the route's scope (`Authorization: Bearer`).
 * `401` without either, or with one that is no good; `403 insufficient_scope` for a token without the scope.
 */
const callerAuth =
  (state: WeakMap<ApiEvent, State>, scopes: ReadonlyMap<string, OAuthScope | null>): Authenticate =>
  async (event, context) => {
    if (!scopes.has(event.routeKey)) return;
    const apiKey = event.headers['x-api-key'];
    const scope = scopes.get(event.routeKey) ?? null;
    const token = apiKey || scope === null ? undefined : bearerOf(event.headers.authorization);
    let site: { siteId: number; servedDomain: string | null } | null;
    if (token !== undefined && scope !== null) {
      const base = baseUrlOf(event);
      const owner = await ownerOfToken(token, base);
      if (!owner)
        throw tokenRequired(
          base,
          'rest',
          'The access token is not valid (unknown, expired, revoked, or for another resource)',
          true,
        );
      if (!owner.scopes.includes(scope)) throw insufficientScope(base, owner, scope);
      site = owner;
    } else {
      if (!apiKey && scope !== null)
        throw tokenRequired(
          baseUrlOf(event),
          'rest',
          'Send the API key as X-API-Key, or an OAuth access token as Authorization: Bearer',
          false,
        );
      if (!apiKey) throw new ApiError('unauthorized', 'The X-API-Key header is missing');
      site = await keySiteOf(apiKey);
      if (site === null) throw new ApiError('unauthorized', 'The API key is not valid');
    }
    observationOf(context).keys({ site_id: site.siteId });
    state.set(event, { ...state.get(event), siteId: site.siteId, servedDomain: site.servedDomain });
  };

/**
 * A Lambda handler for the routes of one function of the route table: errors and JSON bodies as middy
 * middlewares, then API-key auth and the route's handler within the route's deadline.
 */
export function api(fn: FunctionName, handlers: Handlers) {
  const state = new WeakMap<ApiEvent, State>();
  const scopes = new Map(
    routesOf(fn, handlers)
      .filter((r) => r.auth)
      .map((r) => [routeKey(r), scopeOfRoute(r)] as const),
  );
  return routeHandler(handlers, state, callerAuth(state, scopes));
}
