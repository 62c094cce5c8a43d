import * as z from 'zod/mini';
import { PAGE_TYPES, PageStatus, Timestamp, named } from './common';

export const NOTIFY_ACTIONS = ['edited', 'published', 'unpublished', 'deleted'] as const;

/**
 * Body of POST /api/content/notify (spec §2.6, docs/api.md#notify): the site tells the editor service a page
 * changed. An optional field sent as null is taken as left out; an id of any length is looked up (one that
 * matches no page is `matched: false`).
 */
export const NotifyInput = named(
  z.object({
    id: z.string().check(z.minLength(1)),
    type: z.enum(PAGE_TYPES),
    status: z.nullish(PageStatus).check(z.meta({ description: 'The state the site now stores; trusted over action.' })),
    action: z
      .nullish(z.enum(NOTIFY_ACTIONS))
      .check(z.meta({ description: 'What happened; deleted counts as unpublished.' })),
    slug: z.nullish(z.string()),
    updated_at: z.nullish(Timestamp).check(
      z.meta({
        description:
          "When the change happened, on the site's clock. Compared only with the dates of the site's earlier notifies of the page since its last publish: one dated before a notify already applied changes nothing.",
      }),
    ),
  }),
  { id: 'NotifyInput' },
);
export type NotifyInput = z.infer<typeof NotifyInput>;

export const NotifyResult = named(
  z.object({
    ok: z.boolean(),
    matched: z.boolean().check(z.meta({ description: 'false: the editor service has no page with that id (normal).' })),
    relink: z.enum(['queued', 'skipped']),
    applied: z.boolean().check(z.meta({ description: 'Whether the page now reflects this notify.' })),
    reason: z.optional(z.enum(['stale', 'unmatched'])).check(
      z.meta({
        description:
          "Why not: stale, a notify the site dated later was applied since the page's last publish; unmatched, no such page.",
      }),
    ),
  }),
  { id: 'NotifyResult' },
);
export type NotifyResult = z.infer<typeof NotifyResult>;

/**
 * A message on the relink queue: the live state of page `target_id` changed, so the pages linking to it
 * are brought in line with its current state. Its worker plans the fan-out: the linking pages go, in
 * batches, to the relink-pages queue.
 */
export const RelinkMessage = z.object({
  site_id: z.int().check(z.positive()),
  target_id: z.string().check(z.minLength(1)),
  target_type: z.enum(PAGE_TYPES),
  /** The notify that asked for this relink; the fan-out clears the page's pending mark when all of it is done. */
  requested_at: z.optional(z.string()),
});
export type RelinkMessage = z.infer<typeof RelinkMessage>;

/** Linking pages per relink-pages message (and per batch of a relink's fan-out). */
export const RELINK_BATCH_PAGES = 100;

/**
 * A message on the relink-pages queue: one batch (numbered `batch` in its relink's plan) of the pages
 * that link to `target_id`, to bring in line with the target's current state. Its worker only writes.
 */
export const RelinkPagesMessage = z.object({
  site_id: z.int().check(z.positive()),
  target_id: z.string().check(z.minLength(1)),
  target_type: z.enum(PAGE_TYPES),
  requested_at: z.optional(z.string()),
  batch: z.int().check(z.nonnegative()),
  pages: z
    .array(z.object({ id: z.string().check(z.minLength(1)), type: z.enum(PAGE_TYPES) }))
    .check(z.minLength(1), z.maxLength(RELINK_BATCH_PAGES)),
});
export type RelinkPagesMessage = z.infer<typeof RelinkPagesMessage>;
