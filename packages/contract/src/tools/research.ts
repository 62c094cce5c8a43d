import * as z from 'zod/mini';
import { Intent } from '../cm-tables';
import { JobView, KEYWORD_SEEDS, ResearchInput } from '../research';
import { LIMITS } from '../limits';
import { withEstimate } from '../estimate';
import { ResearchFindings, ToolMeta } from './shared';
import { defineTool } from './declaration';

/** A web, reddit or url call that found the same query in process and answers with that job instead of a job of its own. */
const Joined = z.optional(z.literal(true)).check(
  z.meta({
    description: 'true: the call joined a job already researching the same query (mode, seed, question), at no cost',
  }),
);

export const ResearchResult = z.union([
  z.object({
    ...ToolMeta,
    mode: z.literal('keywords'),
    keywords: z.array(
      z.object({
        keyword: z.string(),
        volume: z.int(),
        cpc_usd: z.nullable(z.number()),
        competition: z.nullable(z.number()),
        intent: z.nullable(Intent),
      }),
    ),
  }),
  z.object({
    ...ToolMeta,
    job_id: z.nullable(z.string()),
    status: z.literal('succeeded'),
    ...ResearchFindings,
    joined: Joined,
  }),
  z.object({
    ...ToolMeta,
    job_id: z.string(),
    status: z.enum(['queued', 'running', 'failed']),
    joined: Joined,
    error: JobView.shape.error,
    retry_after_ms: z.optional(z.int()).check(
      z.meta({
        description: 'queued or running: when to collect the job (GET /v1/jobs/{job_id}, or get_job over MCP)',
      }),
    ),
  }),
]);

export const RESEARCH = defineTool({
  name: 'research',
  title: 'Research a topic (keywords, web, reddit, url)',
  description: `Research a topic. mode keywords: ${KEYWORD_SEEDS}, answered at once with volume, cpc_usd and intent, stored linked to page_id: new candidates as ideas, the page's own keywords and committed ones committed. mode web, reddit (web scoped to reddit) or url (one https page; question gives the focus): a queued job of ${LIMITS.researchSecondsMin} to ${LIMITS.researchSecondsMax} s that finds facts and opinions citing sources src-<n>; the call waits up to wait_ms (max ${LIMITS.waitMsMax}) and answers the research or { job_id, status: "running" } to collect with GET /v1/jobs/{job_id}. At most ${LIMITS.concurrentResearch} web, reddit and url calls run at once across the service, at most ${LIMITS.researchSitePlaces} of them a site's (429 concurrency_limit_exceeded, retry after ${LIMITS.researchRetryAfterMs / 1000} s). Run it only after recall came back empty; a repeated query is answered from storage, and a call identical to one whose job is in process joins that job (same job_id, joined: true, no cost).`,
  input: ResearchInput,
  result: withEstimate(ResearchResult),
  mcp: {
    note: `Over MCP: a job still running after ~25 s answers { job_id, status, retry_after_ms }: collect it with get_job.`,
    task: true,
  },
  // A paid call that takes a site's window past 80% (or is refused at 100%) queues its warning.
  grants: { table: 'readWrite', sendsTo: ['research', 'budget-warning'], secrets: ['dataforseo'] },
});
