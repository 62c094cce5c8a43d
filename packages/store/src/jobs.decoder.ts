import * as z from 'zod/mini';
import { BudgetTicket, Finding, JOB_MODES, JOB_STATUSES, JobError, ResearchSource } from '@cm/contract';
import { decodeItem, inStoredOrder } from './decode';

/* A queued job's item. Research is the one tool that queues jobs; its input is what the worker needs. */

export const ResearchJobInput = z.object({
  mode: z.enum(JOB_MODES),
  query: z.string(),
  question: z.nullable(z.string()),
  page_id: z.nullable(z.int()),
});
export type ResearchJobInput = z.infer<typeof ResearchJobInput>;

/** What a research job that succeeded found, what it cost, and where from (GET /v1/jobs shows it as stored). */
export const ResearchJobResult = inStoredOrder({
  research_id: z.string(),
  facts: z.array(Finding),
  opinions: z.array(Finding),
  sources: z.array(ResearchSource),
  data_source: z.string(),
  cost_usd: z.number(),
});
export type ResearchJobResult = z.infer<typeof ResearchJobResult>;

const JobItem = z.object({
  job_id: z.string(),
  site_id: z.int(),
  tool: z.string(),
  status: z.enum(JOB_STATUSES),
  input: ResearchJobInput,
  result: z.optional(ResearchJobResult),
  error: z.optional(JobError),
  /** The job's reservation, made when it was accepted; the worker settles it. */
  budget: z.optional(BudgetTicket),
  created_at: z.string(),
  updated_at: z.string(),
  /** Until when (epoch ms) someone answers for the job: its caller, then its worker, renews it; past it, the job is dead. */
  lease_until: z.optional(z.number()),
});
export type Job = z.infer<typeof JobItem>;

export const decodeJob = (item: Record<string, unknown>): Job => decodeItem('job', JobItem, item);
