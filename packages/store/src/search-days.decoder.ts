import * as z from 'zod/mini';
import { SearchDay } from '@cm/contract';
import { binary, decodeItem } from './decode';
import { decodeJson } from './codec';

/** A stored Search Console day: its date and state beside its figures, gzipped JSON. */
const SearchDayItem = z.looseObject({ date: z.string(), data_state: z.string(), day: binary });

export const decodeSearchDay = (item: Record<string, unknown>): SearchDay =>
  decodeItem(
    'search console day',
    SearchDay,
    decodeJson(decodeItem('search console day', SearchDayItem, item).day),
    item,
  );
