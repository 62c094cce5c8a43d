import { isLive, type NotifyInput, type PageStatus } from '@cm/contract';

export interface LiveState {
  status: PageStatus;
  deleted: boolean;
}

/**
 * The state a notify sets (spec §3, §4.2; docs/api.md#notify): `status` when sent outranks `action`; without it
 * `published` publishes, `unpublished` and `deleted` take the page down (a delete is remembered), and
 * `edited` or neither field leaves the state as it is (null). It never depends on the page's current
 * state, so applying it needs no read.
 */
export function notifiedState(input: Pick<NotifyInput, 'status' | 'action'>): LiveState | null {
  if (input.status) return { status: input.status, deleted: input.status === 'draft' && input.action === 'deleted' };
  switch (input.action) {
    case 'published':
      return { status: 'published', deleted: false };
    case 'unpublished':
      return { status: 'draft', deleted: false };
    case 'deleted':
      return { status: 'draft', deleted: true };
    default:
      return null;
  }
}

/**
 * The site's own date of a notify, for ordering it against the site's other notifies of the page: its
 * `updated_at` (which the contract already turned into a UTC timestamp, so dates order as text exactly
 * as in time), but never later than its receipt, so a clock that is ahead (or a date typed wrong) cannot
 * make it outrank the deliveries after it. Null when the site sent no date.
 *
 * A delivery dated before the newest one applied since the page's last publish changes nothing
 * (deliveries repeat and reorder): the store's write is conditional on it. Only the site's dates are
 * compared with each other, never with this service's clock: the first notify after a publish applies
 * whatever its date, so a take-down is never lost to a site clock that runs behind or to a page's stored
 * date (docs/api.md#notify). Equal dates apply in arrival order; an undated notify always applies.
 */
export const siteTime = (updatedAt: string | null | undefined, receivedAt: string): string | null =>
  updatedAt == null ? null : Date.parse(updatedAt) < Date.parse(receivedAt) ? updatedAt : receivedAt;

/** Relink is queued exactly when what readers can reach changed. */
export const liveChanged = (before: LiveState, after: LiveState): boolean =>
  isLive(before.status, before.deleted) !== isLive(after.status, after.deleted);
