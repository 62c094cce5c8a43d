import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* The shared cache's items: a provider's public answer, when and from where it came; `value` is decoded by the caller's schema. */

const SharedItem = z.looseObject({
  value: z.unknown(),
  fetched_at: z.string(),
  data_source: z.string(),
});

export const decodeSharedItem = (item: Record<string, unknown>) => decodeItem('shared datum', SharedItem, item);
