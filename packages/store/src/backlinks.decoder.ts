import * as z from 'zod/mini';
import { BacklinkNumbers, BacklinkProfile, GapDomain } from '@cm/contract';
import { decodeItem } from './decode';

/* A backlink snapshot: what monitoring stored of a domain on a day. */

const BacklinkSnapshotItem = z.object({
  domain: z.string(),
  day: z.string(),
  taken_at: z.string(),
  data_source: z.string(),
  profile: BacklinkProfile,
  /** The site's domain only: domains linking to its competitors and not to it, taken with the detail. */
  gap: z.optional(z.array(GapDomain)),
  /** The site's domain only: the competitors its gap was taken against (a competitor added since takes it again). */
  gap_against: z.optional(z.array(z.string())),
  /** The day's new and lost backlinks and referring domains (of the month so far); absent before bulk monitoring. */
  numbers: z.optional(z.omit(BacklinkNumbers, { summary: true })),
  /** When the profile's trend was first taken (then extended daily); absent: `taken_at`. */
  trend_at: z.optional(z.string()),
  /** When the profile's detail (anchors, linking pages, referring domains, gap) was taken; absent: `taken_at`. */
  detail_at: z.optional(z.string()),
  /** The summary's numbers when the detail was taken, which the detail rule compares with; absent: the profile's. */
  detail_basis: z.optional(z.object({ backlinks: z.number(), referring_domains: z.number(), rank: z.number() })),
});
export type BacklinkSnapshot = z.infer<typeof BacklinkSnapshotItem>;

export const decodeBacklinkSnapshot = (item: Record<string, unknown>): BacklinkSnapshot =>
  decodeItem('backlink snapshot', BacklinkSnapshotItem, item);
