import type { Device } from './types';

/*
 * The API's limits and choices the dashboard names before it asks. They are written here, not imported from the
 * contract, so the browser bundle stays free of zod; a unit test keeps them equal to the contract's.
 */

/** Active competitors a site may track (spec §2.7; the API answers 409 competitor_limit_reached past it). */
export const MAX_ACTIVE_COMPETITORS = 10;

/** The most a budget window's limit may be (the API answers 400 past it). */
export const BUDGET_USD_MAX = 1_000_000;

/** The devices rank checks are made on, each with a history of its own (serp_landscape's `device`). */
export const DEVICES: readonly Device[] = ['desktop', 'mobile'];

/** The windows search_traffic compares, in days (its `window_days`; 28 is its default). */
export const TRAFFIC_WINDOWS = [7, 28, 90] as const;
export const TRAFFIC_WINDOW_DEFAULT = 28;
