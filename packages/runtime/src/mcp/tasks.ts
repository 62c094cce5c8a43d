import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/server';
import { isJsonObject, LIMITS, type McpToolName } from '@cm/contract';
import { clientCapabilitiesOf } from './client-capabilities';
import { fitted, RESULT_ID } from './paging';
import { errorResult, refusedCall, toolReply } from './reply';
import { invokeTool, readJob, ToolFailure, type Caller, type Json } from './route-calls';
import { runsAsTask } from './tool-kinds';

/*
 * research as an MCP task (docs/api.md#mcp-tasks), in both protocol eras. The job is the task: its
 * id is the job's, scoped to the key's site as GET /v1/jobs is, so any request of this stateless
 * endpoint can answer for it.
 * - 2025-11-25 (the tasks utility): tools/call with `task` queues the research and answers at once;
 *   tasks/get and tasks/result read its job. A research answered at once (keywords mode, or a query
 *   researched lately) is a task already completed: its result is kept with the large results, and
 *   its id says so.
 * - 2026-07-28 (the io.modelcontextprotocol/tasks extension): a client that declares the extension
 *   is answered a task for research that is queued (`resultType: "task"`); research answered at once
 *   is answered as a plain result. tasks/get carries the result once the task is over.
 */

/** Jobs are kept a week (the store's TTL): a task lives as long. */
const TASK_TTL_MS = 7 * 86_400_000;
/** A 2025 task answered at once, kept as a result. */
const RESULT_TASK = new RegExp(`^result_(${RESULT_ID})$`);
/** The tasks extension of protocol 2026-07-28. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type TaskStatus = Task['status'];

const STATUS: Record<string, TaskStatus> = {
  queued: 'working',
  running: 'working',
  succeeded: 'completed',
  failed: 'failed',
};

const notFound = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId} (tasks are kept a week)`, { taskId });

/** A task's job: GET /v1/jobs/{job_id} of the caller's site; a task of no job it can see is not found. */
async function jobOf(caller: Caller, taskId: string, waitMs: number): Promise<Json> {
  try {
    return await readJob(caller, taskId, waitMs);
  } catch (error) {
    if (error instanceof ToolFailure) throw notFound(taskId);
    throw error;
  }
}

/** What a task says of its job, whatever the era. */
function viewOfJob(job: Json) {
  const status = STATUS[String(job.status)] ?? 'failed';
  return {
    taskId: String(job.job_id),
    status,
    statusMessage:
      status === 'working'
        ? `Research ${String(job.status)}: poll tasks/get until it ends`
        : `Research ${String(job.status)}`,
    createdAt: String(job.created_at),
    lastUpdatedAt: String(job.updated_at),
  };
}

/** research run to a job and not waited for: its result (queued with a job, or answered at once). */
async function queuedResearch(caller: Caller, args: Json): Promise<Json> {
  try {
    return await invokeTool(caller, 'research', { ...args, wait_ms: 0 });
  } catch (error) {
    if (error instanceof ToolFailure) throw refusedCall(error.body);
    throw error;
  }
}

const isQueued = (result: Json): result is Json & { job_id: string } =>
  typeof result.job_id === 'string' && (result.status === 'queued' || result.status === 'running');

/** A research result as the research tool answers it (paged as any result over the size limit), or a failure as an error result. */
async function toolResultOf(caller: Caller, result: Json): Promise<CallToolResult> {
  if (result.status === 'failed') return errorResult({ error: 'research_failed', code: 'research_failed', ...result });
  return toolReply('research', {}, await fitted(caller, 'research', {}, result));
}

/** The research result of a job that ended. */
const resultOfJob = (caller: Caller, job: Json) =>
  toolResultOf(
    caller,
    job.status === 'succeeded' && isJsonObject(job.result)
      ? { job_id: job.job_id, status: job.status, cached: false, ...job.result }
      : { job_id: job.job_id, status: job.status, error: job.error },
  );

/* ---- 2025-11-25: the tasks utility ---- */

/** A 2025 task's view of a job. */
const legacyTaskOf = (job: Json): Task => ({
  ...viewOfJob(job),
  ttl: TASK_TTL_MS,
  pollInterval: LIMITS.jobRetryAfterMs,
});

/** A 2025 task answered at once (its research kept as a result): completed, or failed, from the start. */
const answeredTask = (taskId: string, result: Json, createdAt: string): Task => ({
  taskId,
  status: result.status === 'failed' ? 'failed' : 'completed',
  statusMessage: 'Answered at once',
  createdAt,
  lastUpdatedAt: createdAt,
  ttl: TASK_TTL_MS,
});

/**
 * 2025 tools/call with `task`: the research queued (its job is the task), or a task already
 * completed. The v2 SDK checks a tools/call result as a CallToolResult, so it carries empty content
 * beside the task.
 */
export async function startLegacyTask(caller: Caller, name: McpToolName, args: Json): Promise<CallToolResult> {
  const result = await queuedResearch(caller, args);
  const now = new Date();
  if (isQueued(result)) {
    const at = now.toISOString();
    return {
      content: [],
      task: legacyTaskOf({ job_id: result.job_id, status: result.status, created_at: at, updated_at: at }),
    };
  }
  const resultId = await caller.results.keep(caller.siteId, name, JSON.stringify(result), now, TASK_TTL_MS / 1000);
  return { content: [], task: answeredTask(`result_${resultId}`, result, now.toISOString()) };
}

/** A 2025 task answered at once: its kept research result, or null (unknown to the site, gone, or a kept result of another tool). */
async function keptTask(caller: Caller, resultId: string): Promise<{ result: Json; created_at: string } | null> {
  const kept = await caller.results.read(caller.siteId, resultId, new Date());
  if (!kept || !runsAsTask(kept.tool)) return null;
  const result: unknown = JSON.parse(kept.json);
  return isJsonObject(result) ? { result, created_at: kept.created_at } : null;
}

/** 2025 tasks/get: where the task stands. */
export async function getLegacyTask(caller: Caller, taskId: string): Promise<Task> {
  const resultId = RESULT_TASK.exec(taskId)?.[1];
  if (resultId) {
    const kept = await keptTask(caller, resultId);
    if (!kept) throw notFound(taskId);
    return answeredTask(taskId, kept.result, kept.created_at);
  }
  return legacyTaskOf(await jobOf(caller, taskId, 0));
}

/**
 * 2025 tasks/result: the research's result once the task has ended. It waits for the job up to 25 s
 * (API Gateway ends a request at 30); a task still working then is an error that says to poll tasks/get.
 */
export async function legacyTaskResult(caller: Caller, taskId: string): Promise<CallToolResult> {
  const resultId = RESULT_TASK.exec(taskId)?.[1];
  if (resultId) {
    const kept = await keptTask(caller, resultId);
    if (!kept) throw notFound(taskId);
    return toolResultOf(caller, kept.result);
  }
  const job = await jobOf(caller, taskId, LIMITS.waitMsMax);
  if (job.status === 'succeeded' || job.status === 'failed') return resultOfJob(caller, job);
  throw new ProtocolError(
    ProtocolErrorCode.InvalidRequest,
    `Task ${taskId} is still working: poll tasks/get until it ends`,
    {
      taskId,
      retry_after_ms: LIMITS.jobRetryAfterMs,
    },
  );
}

/* ---- 2026-07-28: the io.modelcontextprotocol/tasks extension ---- */

/** Whether a 2026-07-28 request's client declares the tasks extension (a server may answer it a task only then). */
export function declaresTasks(envelope: unknown): boolean {
  const { extensions } = clientCapabilitiesOf(envelope);
  return isJsonObject(extensions) && TASKS_EXTENSION in extensions;
}

/** The extension's task fields of a job. */
const taskOf = (job: Json) => ({ ...viewOfJob(job), ttlMs: TASK_TTL_MS, pollIntervalMs: LIMITS.jobRetryAfterMs });

/**
 * tools/call of research for a client that declares the extension: a task (`resultType: "task"`) when
 * the research is queued, durably (the job is stored before the research function answers); research
 * answered at once is the plain result.
 */
export async function startTask(caller: Caller, args: Json): Promise<CallToolResult> {
  const result = await queuedResearch(caller, args);
  if (!isQueued(result)) return toolResultOf(caller, result);
  const at = new Date().toISOString();
  // A task is no CallToolResult; the SDK checks a tools/call result as one, hence the empty content.
  return {
    content: [],
    resultType: 'task',
    ...taskOf({ job_id: result.job_id, status: result.status, created_at: at, updated_at: at }),
  };
}

/** The extension's methods refuse a client that does not declare it (-32021). */
function assertDeclared(envelope: unknown): void {
  if (!declaresTasks(envelope))
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

/**
 * tasks/get: the task's state, with its result once it is over. A research that failed is a tool
 * result with `isError` (status completed): `failed` is for JSON-RPC errors only.
 */
export async function getTask(caller: Caller, taskId: string, envelope: unknown) {
  assertDeclared(envelope);
  const job = await jobOf(caller, taskId, 0);
  const task = taskOf(job);
  if (task.status === 'working') return task;
  return { ...task, status: 'completed', result: await resultOfJob(caller, job) };
}

/**
 * tasks/update and tasks/cancel: acknowledged for a task of the caller's site. This server never asks
 * for input during a task, so responses are ignored; a research job is not stopped once queued
 * (cancellation is cooperative), so the task still ends completed.
 */
export async function acknowledgeTask(caller: Caller, taskId: string, envelope: unknown): Promise<Json> {
  assertDeclared(envelope);
  await jobOf(caller, taskId, 0);
  return {};
}
