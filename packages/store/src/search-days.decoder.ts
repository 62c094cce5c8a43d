import * as z from 'zod/mini';
import { SearchDay } from '@cm/contract';
import { binary, decodeItem } from './decode';
import { decodeJson } from './codec';
import { KeptDocs } from './kept-docs';

/** A stored Search Console day: its date and state beside its figures, gzipped JSON. */
const SearchDayItem = z.looseObject({ date: z.string(), data_state: z.string(), day: binary });

const keptDays = new KeptDocs<SearchDay>();

/**
 * A stored day, decoded, or kept from an earlier read of the same bytes: the decay check reads a site's
 * last 56 days at each import and search_traffic twice its window at each call. A site whose days fit
 * the kept bytes (days of a few KB) decodes each once; at the caps (about 30 KB a day) one read is more
 * than they hold, the oldest go first, and each day is decoded at each read as before.
 */
export function decodeSearchDay(item: Record<string, unknown>): SearchDay {
  const { day } = decodeItem('search console day', SearchDayItem, item);
  return keptDays.get(`${String(item.pk)} ${String(item.sk)}`, day, (bytes) =>
    decodeItem('search console day', SearchDay, decodeJson(bytes), item),
  );
}

/** A day's counts by position (core's PositionCounts), stored beside its figures for the site's CTR curve. */
const PositionCountsItem = z.looseObject({
  date: z.string(),
  position_counts: z.optional(z.object({ clicks: z.array(z.number()), impressions: z.array(z.number()) })),
});

/** A day's date and its counts by position, as the curve's Query projects them; null for a day stored before they were. */
export const decodePositionCounts = (item: Record<string, unknown>) =>
  decodeItem('search console position counts', PositionCountsItem, item);
