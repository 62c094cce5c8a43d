import { fieldError, SERVICE_LIMITS, type PageDoc, type PublishWarning } from '@cm/contract';
import type { LiveState } from './notify';

/** When a page's schedule publishes it and takes it down (UTC timestamps); at least one is set. */
export interface PageSchedule {
  publish_at: string | null;
  unpublish_at: string | null;
}

/** One change a schedule makes: the page published, or taken down to a draft. */
export type ScheduledChange = 'publish' | 'unpublish';

/** The state a scheduled change sets, as a notify of it would. */
export const scheduledState = (change: ScheduledChange): LiveState => ({
  status: change === 'publish' ? 'published' : 'draft',
  deleted: false,
});

const DAY_MS = 86_400_000;

/** The UTC minute of an ISO time (`yyyy-mm-ddThh:mm`), as the schedule's items are kept by. */
export const minuteOf = (at: string): string => new Date(at).toISOString().slice(0, 16);

/**
 * A publish's schedule (docs/api/publishing.md#pages-on-a-schedule): the document as stored (a draft
 * until `publish_at`), the schedule (null: none), and a warning when `publish_at` has passed (it is
 * published now, as without one). 400 for a schedule that cannot hold: `status: draft` with a time
 * that publishes it or takes it down, `unpublish_at` not after the page goes live, or a time more than
 * `scheduleAheadDaysMax` days ahead.
 */
export function schedulePublish(
  doc: PageDoc,
  input: { status?: string | null; publish_at?: string | null; unpublish_at?: string | null },
  now: string,
): { doc: PageDoc; schedule: PageSchedule | null; warnings: PublishWarning[] } {
  const given = { publish_at: input.publish_at ?? null, unpublish_at: input.unpublish_at ?? null };
  if (given.publish_at === null && given.unpublish_at === null) return { doc, schedule: null, warnings: [] };
  const latest = new Date(Date.parse(now) + SERVICE_LIMITS.scheduleAheadDaysMax * DAY_MS).toISOString();
  for (const field of ['publish_at', 'unpublish_at'] as const) {
    const at = given[field];
    if (at !== null && at > latest)
      throw fieldError('body', field, `must be at most ${SERVICE_LIMITS.scheduleAheadDaysMax} days ahead`);
    if (at !== null && input.status === 'draft')
      throw fieldError('body', 'status', `a draft has nothing to schedule; leave status out to use ${field}`);
  }
  const warnings: PublishWarning[] = [];
  // The sweep finishes a minute once it has passed: a change is kept for a later minute than this one,
  // so it can never land in a minute already swept; one due within this minute is made now.
  const laterMinute = (at: string) => minuteOf(at) > minuteOf(now);
  const publishAt = given.publish_at !== null && laterMinute(given.publish_at) ? given.publish_at : null;
  if (given.publish_at !== null && publishAt === null)
    warnings.push({
      path: 'publish_at',
      message:
        given.publish_at > now
          ? 'due within this minute; the page is published now'
          : 'in the past; the page is published now',
    });
  const liveFrom = publishAt ?? now;
  if (given.unpublish_at !== null && (given.unpublish_at <= liveFrom || !laterMinute(given.unpublish_at)))
    throw fieldError(
      'body',
      'unpublish_at',
      `must be after ${publishAt ? 'publish_at' : 'now'}, in a later minute than this one`,
    );
  const schedule = { publish_at: publishAt, unpublish_at: given.unpublish_at };
  if (schedule.publish_at === null && schedule.unpublish_at === null) return { doc, schedule: null, warnings };
  return { doc: publishAt ? { ...doc, status: 'draft' } : doc, schedule, warnings };
}
