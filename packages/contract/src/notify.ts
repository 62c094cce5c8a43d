import * as z from 'zod';
import { PAGE_TYPES, PageStatus, Timestamp } from './common';

export const NOTIFY_ACTIONS = ['edited', 'published', 'unpublished', 'deleted'] as const;
export type NotifyAction = (typeof NOTIFY_ACTIONS)[number];

/** Body of POST /api/content/notify (spec §2.6, docs/api.md#notify): the site tells the editor service a page changed. */
export const NotifyInput = z
  .object({
    id: z.string().min(1).max(100),
    type: z.enum(PAGE_TYPES),
    status: PageStatus.optional().meta({ description: 'The state the site now stores; trusted over action.' }),
    action: z.enum(NOTIFY_ACTIONS).optional().meta({ description: 'What happened; deleted counts as unpublished.' }),
    slug: z.string().optional(),
    updated_at: Timestamp.optional().meta({
      description: 'When the change happened; a notify older than one already applied changes nothing.',
    }),
  })
  .meta({ id: 'NotifyInput' });
export type NotifyInput = z.infer<typeof NotifyInput>;

export const NotifyResult = z
  .object({
    ok: z.boolean(),
    matched: z.boolean().meta({ description: 'false: the editor service has no page with that id (normal).' }),
    relink: z.enum(['queued', 'skipped']),
    applied: z.boolean().meta({ description: 'Whether the page now reflects this notify.' }),
    reason: z
      .enum(['stale', 'unmatched'])
      .optional()
      .meta({ description: 'Why not: stale, a newer notify or publish was applied already; unmatched, no such page.' }),
  })
  .meta({ id: 'NotifyResult' });
export type NotifyResult = z.infer<typeof NotifyResult>;

/**
 * A message on the relink queue: the live state of page `target_id` changed, so the pages linking to it
 * are brought in line with its current state. `cursor` continues a fan-out from where the last message
 * of it stopped.
 */
export const RelinkMessage = z.object({
  site_id: z.int().positive(),
  target_id: z.string().min(1),
  target_type: z.enum(PAGE_TYPES),
  cursor: z.string().optional(),
  /** The notify that asked for this relink; its worker clears the page's pending mark when done. */
  requested_at: z.string().optional(),
});
export type RelinkMessage = z.infer<typeof RelinkMessage>;
