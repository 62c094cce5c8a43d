import * as z from 'zod/mini';
import { BudgetTicket, JOB_MODES, JOB_STATUSES, JobError } from '@cm/contract';
import { decodeItem } from './decode';

/* A queued job's item. Research is the one tool that queues jobs; its input is what the worker needs. */

export const ResearchJobInput = z.object({
  mode: z.enum(JOB_MODES),
  query: z.string(),
  question: z.nullable(z.string()),
  page_id: z.nullable(z.int()),
});
export type ResearchJobInput = z.infer<typeof ResearchJobInput>;

const JobItem = z.object({
  job_id: z.string(),
  site_id: z.int(),
  tool: z.string(),
  status: z.enum(JOB_STATUSES),
  input: ResearchJobInput,
  result: z.optional(z.record(z.string(), z.unknown())),
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
