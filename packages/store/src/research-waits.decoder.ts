import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A research job waiting for a place under the cap: its key, the job's id and its site (unset on items written before sites had shares). */

const WaitingItem = z.looseObject({ pk: z.string(), sk: z.string(), job_id: z.string(), site_id: z.optional(z.int()) });

export const decodeWaiting = (item: Record<string, unknown>) => decodeItem('waiting research job', WaitingItem, item);
