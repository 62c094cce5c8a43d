import * as z from 'zod/mini';
import { CADENCES, RankRow, ScopeRun, StoredDevice, TRACKED_SCOPES, type FailedCheck } from '@cm/contract';
import { decodeItem } from './decode';

/* Rank tracking's items: a site's settings and tracked scopes, and a keyword's dated checks (a claim, then the row). */

const TrackedScopeItem = z.object({
  type: z.enum(TRACKED_SCOPES),
  id: z.int(),
  cadence: z.enum(CADENCES),
  /** A scope tracked before devices were has none: its checks were desktop ones, and stay so. */
  device: StoredDevice,
  max_keywords: z.nullable(z.int()),
  since: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_run: z.optional(ScopeRun),
  /** The scope's runs that failed whole, newest first, the last few kept (the item stays bounded). */
  failed_runs: z.optional(z.array(z.object({ day: z.string(), error: z.string() }))),
});
export type TrackedScope = Omit<z.infer<typeof TrackedScopeItem>, 'cadence'> & { cadence: 'daily' | 'weekly' };

const SettingsItem = z.looseObject({ depth: z.int() });

/**
 * A check that ran: its row. A check only claimed (posted, not collected yet, or never) is `claimed`; one
 * the provider answered with no SERP (refused for good, or failed) is `failed`, with why.
 */
const RankItem = z.union([
  z.looseObject({ state: z.literal('claimed') }),
  z.extend(z.looseObject(RankRow.shape), { state: z.literal('checked') }),
  z.looseObject({ state: z.literal('failed'), keyword: z.string(), day: z.string(), error: z.string() }),
]);

/** A stored check of a day: claimed, its row, or failed. */
export type CheckItem =
  | { state: 'claimed'; released: boolean }
  | { state: 'checked'; row: RankRow }
  | { state: 'failed'; failed: FailedCheck };

type Item = Record<string, unknown>;

export function decodeTrackedScope(item: Item): TrackedScope | null {
  const scope = decodeItem('tracked scope', TrackedScopeItem, item);
  return scope.cadence === 'off' ? null : { ...scope, cadence: scope.cadence };
}
export const decodeTrackingSettings = (item: Item) => decodeItem('rank tracking settings', SettingsItem, item);

export function decodeCheckItem(item: Item): CheckItem {
  const decoded = decodeItem('rank row', RankItem, item);
  if (decoded.state === 'claimed') return { state: 'claimed', released: decoded.released_at !== undefined };
  if (decoded.state === 'failed')
    return { state: 'failed', failed: { day: decoded.day, keyword: decoded.keyword, error: decoded.error } };
  const { state: _state, ...row } = decoded;
  return { state: 'checked', row };
}
