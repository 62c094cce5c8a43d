import * as z from 'zod/mini';
import { CADENCES, RankRow, TRACKED_SCOPES } from '@cm/contract';
import { decodeItem } from './decode';

/* Rank tracking's items: a site's settings and tracked scopes, and a keyword's dated checks (a claim, then the row). */

const TrackedScopeItem = z.object({
  type: z.enum(TRACKED_SCOPES),
  id: z.int(),
  cadence: z.enum(CADENCES),
  max_keywords: z.nullable(z.int()),
  since: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TrackedScope = Omit<z.infer<typeof TrackedScopeItem>, 'cadence'> & { cadence: 'daily' | 'weekly' };

const SettingsItem = z.looseObject({ depth: z.int() });

/** A check that ran: its row. A check only claimed (posted, not collected yet, or never) is `claimed`. */
const RankItem = z.union([
  z.looseObject({ state: z.literal('claimed') }),
  z.extend(z.looseObject(RankRow.shape), { state: z.literal('checked') }),
]);

type Item = Record<string, unknown>;

export function decodeTrackedScope(item: Item): TrackedScope | null {
  const scope = decodeItem('tracked scope', TrackedScopeItem, item);
  return scope.cadence === 'off' ? null : { ...scope, cadence: scope.cadence };
}
export const decodeTrackingSettings = (item: Item) => decodeItem('rank tracking settings', SettingsItem, item);

/** A stored check: its row once it ran, else null (a claim). */
export function decodeRankItem(item: Item): RankRow | null {
  const decoded = decodeItem('rank row', RankItem, item);
  if (decoded.state === 'claimed') return null;
  const { state: _state, ...row } = decoded;
  return row;
}
