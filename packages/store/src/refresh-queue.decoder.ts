import * as z from 'zod/mini';
import { RefreshEntry } from '@cm/contract';
import { decodeItem } from './decode';

/** A page's pointer: the sort key of its entry. */
const PointerItem = z.looseObject({ entry_sk: z.string() });

const EntryItem = z.looseObject({ sk: z.string(), entry: RefreshEntry });

export const decodeRefreshPointer = (item: Record<string, unknown>) => decodeItem('refresh pointer', PointerItem, item);
export const decodeRefreshEntry = (item: Record<string, unknown>) => decodeItem('refresh entry', EntryItem, item);
