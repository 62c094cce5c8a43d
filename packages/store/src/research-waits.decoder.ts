import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* A research job waiting for a place under the cap: its key, and the job's id. */

const WaitingItem = z.looseObject({ pk: z.string(), sk: z.string(), job_id: z.string() });

export const decodeWaiting = (item: Record<string, unknown>) => decodeItem('waiting research job', WaitingItem, item);
