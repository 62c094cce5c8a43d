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

/** A delivery older than the newest one applied changes nothing (deliveries repeat and reorder). */
export const isStaleNotify = (newestApplied: string | null, at: string): boolean => newestApplied !== null && at < newestApplied;

/** Relink is queued exactly when what readers can reach changed. */
export const liveChanged = (before: LiveState, after: LiveState): boolean => isLive(before.status, before.deleted) !== isLive(after.status, after.deleted);
