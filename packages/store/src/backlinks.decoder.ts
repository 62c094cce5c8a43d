import * as z from 'zod/mini';
import { BacklinkProfile, GapDomain } from '@cm/contract';
import { decodeItem } from './decode';

/* A backlink snapshot: what monitoring stored of a domain on a day. */

const BacklinkSnapshotItem = z.object({
  domain: z.string(),
  day: z.string(),
  taken_at: z.string(),
  data_source: z.string(),
  profile: BacklinkProfile,
  /** The site's domain only: domains linking to its competitors and not to it. */
  gap: z.optional(z.array(GapDomain)),
});
export type BacklinkSnapshot = z.infer<typeof BacklinkSnapshotItem>;

export const decodeBacklinkSnapshot = (item: Record<string, unknown>): BacklinkSnapshot =>
  decodeItem('backlink snapshot', BacklinkSnapshotItem, item);
