import * as z from 'zod/mini';
import { Finding, JOB_MODES, ResearchSource } from '@cm/contract';
import { decodeItem } from './decode';

/* Research items: a stored research, its recall index entries, and the latest research of each query. */

/** In the order the worker stores it, which is the order recall answers with. */
const ResearchItem = z.object({
  research_id: z.string(),
  mode: z.enum(JOB_MODES),
  query: z.string(),
  question: z.nullable(z.string()),
  page_id: z.nullable(z.int()),
  data_source: z.string(),
  created_at: z.string(),
  facts: z.array(Finding),
  opinions: z.array(Finding),
  sources: z.array(ResearchSource),
});
export type StoredResearch = z.infer<typeof ResearchItem>;

const TermItem = z.looseObject({
  sk: z.string(),
  research_id: z.string(),
  mode: z.enum(JOB_MODES),
  page_id: z.nullable(z.int()),
});

const QueryItem = z.looseObject({
  sk: z.string(),
  research_id: z.optional(z.string()),
  created_at: z.optional(z.string()),
  pending_job: z.optional(z.string()),
  pending_at: z.optional(z.string()),
});

type Item = Record<string, unknown>;

export const decodeResearch = (item: Item): StoredResearch => decodeItem('research', ResearchItem, item);
export const decodeResearchTerm = (item: Item) => decodeItem('research term', TermItem, item);
export const decodeResearchQuery = (item: Item, key?: Item) => decodeItem('research query', QueryItem, item, key);
