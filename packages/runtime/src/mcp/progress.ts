import { LIMITS, type McpToolName } from '@cm/contract';
import type { Json } from './route-calls';

/*
 * Long work an agent can follow (docs/api.md#mcp-progress): progress notifications while a call
 * waits, and in a result that is not complete yet, the call that collects the rest.
 */

/** How often a waiting call reports progress. */
export const PROGRESS_EVERY_MS = 2_000;

/** The calls that wait for queued research: what to say of the wait, or null for a call that does not wait. */
export function waitOf(name: McpToolName, args: Json): { waitMs: number; what: string } | null {
  const waitMs = typeof args.wait_ms === 'number' ? args.wait_ms : LIMITS.waitMsMax;
  if (name === 'research' && args.mode !== 'keywords' && args.estimate !== true)
    return { waitMs, what: `${typeof args.mode === 'string' ? args.mode : 'web'} research` };
  if (name === 'serp_landscape' && args.depth === 'analyze' && args.estimate !== true)
    return { waitMs, what: 'the keywords’ research' };
  if (name === 'get_job' && typeof args.wait_ms === 'number' && args.wait_ms > 0)
    return { waitMs: args.wait_ms, what: 'the job' };
  return null;
}

/**
 * One progress notification's params: seconds waited (always more than the last: the spec's rule) of
 * the wait's seconds at most; past the wait (the answer is on its way) without a total.
 */
export function progressAt(elapsedMs: number, wait: { waitMs: number; what: string }) {
  const seconds = Math.round(elapsedMs / 100) / 10;
  const total = Math.round(wait.waitMs / 100) / 10;
  return {
    progress: seconds,
    ...(seconds < total ? { total } : {}),
    message: `Waiting for ${wait.what}: ${Math.round(seconds)} s of at most ${Math.round(total)} s. Work still running then is answered with how to collect it.`,
  };
}

/** How to collect what a result says is still running: the call to make next, or null for a complete result. */
export function collectOf(name: McpToolName, args: Json, result: Json): Json | null {
  const running = result.status === 'queued' || result.status === 'running';
  if (running && typeof result.job_id === 'string')
    return {
      tool: 'get_job',
      arguments: { job_id: result.job_id, wait_ms: LIMITS.waitMsMax },
      after_ms: LIMITS.jobRetryAfterMs,
      hint: `The research is still running: call get_job with this job_id (it can wait up to ${LIMITS.waitMsMax / 1000} s) to collect it.`,
    };
  const research = result.research;
  if (
    name === 'serp_landscape' &&
    typeof research === 'object' &&
    research !== null &&
    'status' in research &&
    research.status === 'partial'
  )
    return {
      tool: 'serp_landscape',
      arguments: { ...args },
      after_ms: LIMITS.jobRetryAfterMs,
      hint: 'Some keywords are still being researched (research.in_process): call serp_landscape again with the same arguments to collect them; keywords already researched answer at once.',
    };
  return null;
}
