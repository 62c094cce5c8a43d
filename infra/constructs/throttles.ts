import { Bug } from '@cm/core';
import { RATE_RULES, routeKey, type RateRule } from '@cm/contract';

/*
 * API Gateway's throttles, sized so the per-tenant limits (WAF's rate rules, RATE_RULES) bind first. A
 * route's throttle is one bucket shared by every caller; WAF counts each key, token or address apart.
 * A route's limit is HEAVY_TENANTS callers at their whole allowance on it at once, so a tenant past its
 * allowance meets WAF's `429 rate_limited` while the route still serves the others.
 */

/**
 * API Gateway's quota per account and region, across all its APIs (Service Quotas: "Throttle rate"
 * 10,000 requests a second, "Throttle burst rate" 5,000): no route's limit may pass it.
 */
export const ACCOUNT_API_LIMITS = { rateLimit: 10_000, burstLimit: 5_000 } as const;

/**
 * How many callers the design serves at their whole allowance on one route in the same second: 50,
 * 0.5% of the 10,000 sites, five times the 10 that filled the old 100 requests a second. A bulk import
 * (a key's 600 publishes a minute) or an agent's loop at its limit is an occasional event of one site;
 * fifty at once is past any peak the design expects. The account allows at most 500 (its 10,000
 * requests a second over one address's 20, below), and 50 leaves most of it to the account's other APIs.
 */
export const HEAVY_TENANTS = 50;

/** A route's burst: this many seconds of its rate, so a second's jitter of the heavy tenants passes. */
const BURST_SECONDS = 2;

/** What a rule lets one key, token or address make a second, on average over its window. */
const perSecond = (rule: Pick<RateRule, 'limit' | 'windowSeconds'>) => rule.limit / rule.windowSeconds;

export interface RouteThrottle {
  rateLimit: number;
  burstLimit: number;
}

/** The whole-API rule per address: every request from one address counts in it. */
function addressRule(): RateRule {
  const rule = RATE_RULES.find((r) => r.endpoint === 'api' && r.by === 'ip' && r.routes === undefined);
  if (!rule) throw new Bug('RATE_RULES has no per-address rule over the whole API');
  return rule;
}

/**
 * One tenant's allowance a second on a route: the most a rule scoped to the route lets one key, token
 * or address make (a tenant may call with either key or token); on a route no such rule names, the
 * whole-API rule per address.
 */
function tenantAllowance(route: { method: string; path: string }): number {
  const scoped = RATE_RULES.filter(
    (rule) => rule.endpoint === 'api' && rule.routes?.some((r) => r.method === route.method && r.path === route.path),
  );
  return Math.max(...(scoped.length ? scoped : [addressRule()]).map(perSecond));
}

/** A route's throttle: HEAVY_TENANTS callers at `allowance` a second each, its burst within the account's quota. */
function throttleFor(allowance: number): RouteThrottle {
  const rateLimit = Math.ceil(HEAVY_TENANTS * allowance);
  return { rateLimit, burstLimit: Math.min(rateLimit * BURST_SECONDS, ACCOUNT_API_LIMITS.burstLimit) };
}

/** The stage's default route throttle: every route no rate rule scopes, at the per-address allowance. */
export const DEFAULT_THROTTLE: RouteThrottle = throttleFor(perSecond(addressRule()));

/**
 * The throttle of each route a rate rule scopes (by API Gateway route key), where a tenant's allowance
 * is not the per-address one: publish, the paid tools, registration.
 */
export function routeThrottles(): Record<string, RouteThrottle> {
  const routes = RATE_RULES.filter((rule) => rule.endpoint === 'api').flatMap((rule) => rule.routes ?? []);
  return Object.fromEntries(routes.map((route) => [routeKey(route), throttleFor(tenantAllowance(route))]));
}
