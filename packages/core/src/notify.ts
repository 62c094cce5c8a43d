import { isLive, type NotifyInput, type PageStatus } from '@cm/contract';

export interface LiveState {
  status: PageStatus;
  deleted: boolean;
}

/**
 * The state a notify leaves a page in (spec §3, §4.2; docs/api.md#notify): `status` when sent outranks `action`; without it
 * `published` publishes, `unpublished` and `deleted` take the page down (a delete is remembered), and
 * `edited` or neither field changes nothing.
 */
export function notifiedState(current: LiveState, input: Pick<NotifyInput, 'status' | 'action'>): LiveState {
  if (input.status) return { status: input.status, deleted: input.status === 'draft' && input.action === 'deleted' };
  switch (input.action) {
    case 'published':
      return { status: 'published', deleted: false };
    case 'unpublished':
      return { status: 'draft', deleted: false };
    case 'deleted':
      return { status: 'draft', deleted: true };
    default:
      return current;
  }
}

/**
 * When a notify counts as made: its `updated_at`, but never later than its receipt, so a clock that is
 * ahead (or a date typed wrong) cannot make it outrank the deliveries after it.
 */
export const notifyTime = (updatedAt: string | undefined, receivedAt: string): string =>
  updatedAt !== undefined && Date.parse(updatedAt) < Date.parse(receivedAt) ? updatedAt : receivedAt;

/**
 * A delivery older than the newest one applied changes nothing (deliveries repeat and reorder). The
 * newest applied counts no later than now either: a page frozen by a future date before this rule
 * thaws at the next delivery.
 */
export const isStaleNotify = (newestApplied: string | null, at: string, receivedAt: string): boolean =>
  newestApplied !== null && Date.parse(at) < Date.parse(notifyTime(newestApplied, receivedAt));

/** Relink is queued exactly when what readers can reach changed. */
export const liveChanged = (before: LiveState, after: LiveState): boolean => isLive(before.status, before.deleted) !== isLive(after.status, after.deleted);
