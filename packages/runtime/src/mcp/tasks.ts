import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type CreateTaskResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, LIMITS } from '@cm/contract';
import { fitted, RESULT_ID } from './paging';
import { errorResult, toolReply } from './reply';
import { invokeTool, readJob, ToolFailure, type Caller, type Json } from './route-calls';
import { TASK_TOOLS } from './tool-kinds';

/*
 * research as an MCP task (the 2025-11-25 tasks utility, docs/api.md#mcp-tasks): tools/call with
 * `task` queues the research and answers at once; tasks/get and tasks/result read its job. The job
 * is the task: its id is the job's, scoped to the key's site as GET /v1/jobs is, so any request of
 * this stateless endpoint can answer for it. A research answered at once (keywords mode, or a query
 * researched lately) is a task that is already completed: its result is kept with the other large
 * results and its id says so.
 */

/** Jobs are kept a week (the store's TTL): a task lives as long. */
const TASK_TTL_MS = 7 * 86_400_000;
/** A task answered at once, kept as a result. */
const RESULT_TASK = new RegExp(`^result_(${RESULT_ID})$`);

const STATUS: Record<string, Task['status']> = {
  queued: 'working',
  running: 'working',
  succeeded: 'completed',
  failed: 'failed',
};

/** A task answered at once (its research kept as a result): completed, or failed, from the start. */
const answeredTask = (taskId: string, result: Json, createdAt: string): Task => ({
  taskId,
  status: result.status === 'failed' ? 'failed' : 'completed',
  statusMessage: 'Answered at once',
  createdAt,
  lastUpdatedAt: createdAt,
  ttl: TASK_TTL_MS,
});

/** A task's view of a job, as GET /v1/jobs/{job_id} answers it. */
function taskOfJob(job: Json): Task {
  const status = STATUS[String(job.status)] ?? 'failed';
  return {
    taskId: String(job.job_id),
    status,
    statusMessage:
      status === 'working'
        ? `Research ${String(job.status)}: poll tasks/get, then read tasks/result`
        : `Research ${String(job.status)}`,
    createdAt: String(job.created_at),
    lastUpdatedAt: String(job.updated_at),
    ttl: TASK_TTL_MS,
    pollInterval: LIMITS.jobRetryAfterMs,
  };
}

const notFound = (taskId: string) =>
  new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId} (tasks are kept a week)`, { taskId });

/** A failure of the call that would create a task: a JSON-RPC error carrying the error object REST answers. */
const refused = (body: Json) =>
  new McpError(ErrorCode.InvalidParams, typeof body.message === 'string' ? body.message : 'Refused', body);

/** A task's job: GET /v1/jobs/{job_id} of the caller's site; a task of no job it can see is not found. */
async function jobOf(caller: Caller, taskId: string, waitMs: number): Promise<Json> {
  try {
    return await readJob(caller, taskId, waitMs);
  } catch (error) {
    if (error instanceof ToolFailure) throw notFound(taskId);
    throw error;
  }
}

/** tools/call with `task`: the research queued (its job is the task), or a task already completed. */
export async function startTask(caller: Caller, name: string, args: Json): Promise<CreateTaskResult> {
  let result: Json;
  try {
    result = await invokeTool(caller, 'research', { ...args, wait_ms: 0 });
  } catch (error) {
    if (error instanceof ToolFailure) throw refused(error.body);
    throw error;
  }
  const now = new Date();
  if (typeof result.job_id === 'string' && (result.status === 'queued' || result.status === 'running')) {
    const at = now.toISOString();
    return { task: taskOfJob({ job_id: result.job_id, status: result.status, created_at: at, updated_at: at }) };
  }
  const resultId = await caller.results.keep(caller.siteId, name, JSON.stringify(result), now, TASK_TTL_MS / 1000);
  return { task: answeredTask(`result_${resultId}`, result, now.toISOString()) };
}

/** A task answered at once: its kept research result, or null (unknown to the site, gone, or a kept result of another tool). */
async function keptTask(caller: Caller, resultId: string): Promise<{ result: Json; created_at: string } | null> {
  const kept = await caller.results.read(caller.siteId, resultId, new Date());
  if (!kept || !TASK_TOOLS.includes(kept.tool)) return null;
  const result: unknown = JSON.parse(kept.json);
  return isJsonObject(result) ? { result, created_at: kept.created_at } : null;
}

/** tasks/get: where the task stands. */
export async function getTask(caller: Caller, taskId: string): Promise<Task> {
  const resultId = RESULT_TASK.exec(taskId)?.[1];
  if (resultId) {
    const kept = await keptTask(caller, resultId);
    if (!kept) throw notFound(taskId);
    return answeredTask(taskId, kept.result, kept.created_at);
  }
  return taskOfJob(await jobOf(caller, taskId, 0));
}

/** A research result as the research tool answers it (paged as any result over the size limit), or a failure as an error result. */
async function toolResultOf(caller: Caller, result: Json): Promise<CallToolResult> {
  if (result.status === 'failed') return errorResult({ error: 'research_failed', code: 'research_failed', ...result });
  return toolReply('research', {}, await fitted(caller, 'research', {}, result));
}

/**
 * tasks/result: the research's result once the task has ended. It waits for the job up to 25 s (API
 * Gateway ends a request at 30); a task still working then is an error that says to poll tasks/get.
 */
export async function taskResult(caller: Caller, taskId: string): Promise<CallToolResult> {
  const resultId = RESULT_TASK.exec(taskId)?.[1];
  if (resultId) {
    const kept = await keptTask(caller, resultId);
    if (!kept) throw notFound(taskId);
    return toolResultOf(caller, kept.result);
  }
  const job = await jobOf(caller, taskId, LIMITS.waitMsMax);
  if (job.status === 'succeeded' && isJsonObject(job.result))
    return toolResultOf(caller, { job_id: job.job_id, status: job.status, cached: false, ...job.result });
  if (job.status === 'failed')
    return toolResultOf(caller, { job_id: job.job_id, status: job.status, error: job.error });
  throw new McpError(ErrorCode.InvalidRequest, `Task ${taskId} is still working: poll tasks/get until it ends`, {
    taskId,
    retry_after_ms: LIMITS.jobRetryAfterMs,
  });
}
