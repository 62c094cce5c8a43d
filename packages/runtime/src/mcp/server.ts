import { Bug } from '@cm/core';
import * as z from 'zod/v4';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
  type InputRequiredResult,
  type McpRequestContext,
  type Notification,
  type ServerContext,
  type ServerOptions,
} from '@modelcontextprotocol/server';
import { ApiError, isJsonObject, isMcpExtraTool, isMcpToolName, type McpToolName } from '@cm/contract';
import {
  answersElicitation,
  approvalAnswered,
  approvalAnswers,
  approvalQuestion,
  askApproval,
  declaresElicitation,
  elicitingSession,
  envelopeAsksForms,
  takeAnswers,
  type Ask,
} from './approval';
import { EXTRA_TOOL_CALLS } from './extra-tools';
import { mcpTools } from './listing';
import { fitted, nextPage, type Fitted } from './paging';
import { errorResult, refusedCall, toolReply } from './reply';
import { PROGRESS_EVERY_MS, progressAt, waitOf } from './progress';
import { CACHE_HINTS, readResource, RESOURCE_TEMPLATES, RESOURCES } from './resources';
import { readMessage } from './message';
import { invokeTool, ToolFailure, type Caller, type Json } from './route-calls';
import {
  acknowledgeTask,
  declaresTasks,
  getLegacyTask,
  getTask,
  legacyTaskResult,
  startLegacyTask,
  startTask,
  TASKS_EXTENSION,
} from './tasks';
import { scopeRefusal } from './scopes';
import { hasOwnCursor, runsAsTask } from './tool-kinds';

/*
 * The MCP server of one request, in both protocol eras (docs/api.md#mcp): 2026-07-28 (stateless
 * requests, server/discover, input_required, the tasks extension) through the v2 SDK's
 * createMcpHandler, and 2025 (initialize, the tasks utility, elicitation mid-call) through its
 * streamable HTTP transport, as before. One factory makes both servers; what differs is said where
 * it differs.
 */

type Era = McpRequestContext['era'];

/** A tool's result, as its own function (or the MCP-only call) answers it. */
const resultOf = (caller: Caller, name: McpToolName, args: Json): Promise<Json> =>
  isMcpExtraTool(name) ? EXTRA_TOOL_CALLS[name](caller, args) : invokeTool(caller, name, args);

/** A name that is no tool: the protocol error every revision's tools page gives (-32602), not a tool's failure. */
const unknownTool = (name: string) =>
  refusedCall(
    new ApiError('unknown_tool', `Unknown tool: ${JSON.stringify(name)}; tools/list lists the tools`, {
      name,
    }).toBody(),
  );

/** Progress notifications every PROGRESS_EVERY_MS while `work` runs, when the client gave a token and the call waits. */
async function reportingProgress<T>(
  name: McpToolName,
  args: Json,
  progressToken: string | number | undefined,
  notify: (notification: Notification) => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const wait = progressToken === undefined ? null : waitOf(name, args);
  if (progressToken === undefined || !wait) return work();
  const started = Date.now();
  const send = () =>
    notify({
      method: 'notifications/progress',
      params: { progressToken, ...progressAt(Date.now() - started, wait) },
    }).catch(
      // A notification that cannot be sent loses nothing: the result still comes.
      () => undefined,
    );
  void send();
  const timer = setInterval(() => void send(), PROGRESS_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** The refusal a call over the approval threshold answers, when it is one (with its confirm token). */
function approvalRefusal(error: unknown): (Json & { confirm: string }) | null {
  const refusal = error instanceof ToolFailure ? error.body : null;
  return refusal?.error === 'approval_required' && typeof refusal.confirm === 'string'
    ? { ...refusal, confirm: refusal.confirm }
    : null;
}

/** What a call the user did not approve answers: it was not made, and nothing was spent. */
const declined = (approval: 'decline' | 'cancel', estimate: unknown) =>
  new ToolFailure({
    error: 'approval_declined',
    code: 'approval_declined',
    message: `The user ${approval === 'decline' ? 'declined' : 'dismissed'} the call: it was not made and nothing was spent`,
    estimate,
  });

/** 2025: a tool's result; a call over the approval threshold first asks the user, when `ask` can (approval.ts). */
async function askedResultOf(
  caller: Caller,
  name: McpToolName,
  args: Json,
  ask: Ask | undefined,
  signal: AbortSignal,
): Promise<Json> {
  try {
    return await resultOf(caller, name, args);
  } catch (error) {
    const refusal = ask ? approvalRefusal(error) : null;
    if (!ask || !refusal) throw error;
    const approval = await askApproval(caller, ask, name, refusal, signal);
    // No decision (no answer in time, or the client could not ask), or nobody is left to answer: the
    // refusal stands, with its token, for the agent to confirm later; a call given up is never made.
    if (approval === null || signal.aborted) throw error;
    if (approval !== 'accept') throw declined(approval, refusal.estimate);
    return resultOf(caller, name, { ...args, confirm: refusal.confirm });
  }
}

/** A tool call's failure as the result MCP answers: the error object REST answers, as an `isError` result. */
function failureResult(caller: Caller, name: string, error: unknown): CallToolResult {
  if (error instanceof ToolFailure) return errorResult(error.body);
  if (error instanceof ApiError) return errorResult(error.toBody());
  caller.logger.error('mcp tool call failed', { tool: name, error: error instanceof Error ? error : String(error) });
  return errorResult({ error: 'internal_error', code: 'internal_error', message: 'Internal error' });
}

/** A call's result as MCP answers it: a page of a kept result, or the result fitted, with its `_meta`. */
async function shown(caller: Caller, name: McpToolName, args: Json, run: () => Promise<Json>): Promise<CallToolResult> {
  try {
    let page: Fitted;
    if (typeof args.cursor === 'string' && !hasOwnCursor(name)) page = await nextPage(caller, name, args.cursor);
    else page = await fitted(caller, name, args, await run());
    return toolReply(name, args, page);
  } catch (error) {
    return failureResult(caller, name, error);
  }
}

/**
 * 2026-07-28 tools/call: a call over the approval threshold answers `input_required` (an elicitation)
 * to a client that answers form elicitations, and its retry carries the decision: accepted, the call
 * is made with the refusal's confirm token; declined, it is not made (its estimate, free, says what it
 * would have cost). research is a task for a client that declares the tasks extension.
 */
async function modernCall(caller: Caller, name: McpToolName, args: Json, ctx: ServerContext) {
  const { envelope, inputResponses } = ctx.mcpReq;
  if (runsAsTask(name) && declaresTasks(envelope) && waitOf(name, args) && typeof args.cursor !== 'string')
    return startTask(caller, args);
  const answered = approvalAnswered(inputResponses, ctx.mcpReq.requestState());
  const asked: { question?: InputRequiredResult } = {};
  const result = await shown(caller, name, args, () =>
    reportingProgress(name, args, ctx.mcpReq._meta?.progressToken, ctx.mcpReq.notify, async () => {
      if (answered?.approval === 'decline' || answered?.approval === 'cancel')
        throw declined(answered.approval, await resultOf(caller, name, { ...args, estimate: true }));
      try {
        return await resultOf(
          caller,
          name,
          answered?.approval === 'accept' ? { ...args, confirm: answered.confirm } : args,
        );
      } catch (error) {
        const refusal = approvalRefusal(error);
        if (refusal && !answered && envelopeAsksForms(envelope)) asked.question = approvalQuestion(name, refusal);
        throw error;
      }
    }),
  );
  return asked.question ?? result;
}

/** 2025 tools/call: with `task` (research only) a task; otherwise the call, asking for approval where the client answers. */
function legacyCall(
  caller: Caller,
  name: McpToolName,
  args: Json,
  ctx: ServerContext,
  ask: Ask | undefined,
  task: unknown,
) {
  if (task !== undefined) {
    if (!runsAsTask(name))
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${name} does not run as a task; call it without task`);
    return startLegacyTask(caller, name, args);
  }
  return shown(caller, name, args, () =>
    reportingProgress(name, args, ctx.mcpReq._meta?.progressToken, ctx.mcpReq.notify, () =>
      askedResultOf(caller, name, args, ask, ctx.mcpReq.signal),
    ),
  );
}

/** What a client may put before the model once: what every result carries, and how large and long work is answered. */
const INSTRUCTIONS = [
  'Every tool result carries its run: data_source ("sandbox", the provider\'s name, or "database" for stored data), cost_usd (what its paid provider calls cost), cached (true: no provider was called), budget (what the tightest budget window has left; null remaining_usd: no limit) and simulated (true: sandbox list prices, not billed); _meta repeats cost_usd, cached and data_source.',
  "A paid tool takes estimate: true to answer its price without spending; a call over the site's approval threshold asks the user by elicitation where the client answers them, and otherwise answers approval_required with a confirm token to send back.",
  'A result too large for one reply is paged: call the same tool with { cursor: next_cursor } for the next page, or read page.result_uri in pieces.',
  'research and serp_landscape analyze report progress while they wait when given a progress token; a result still running says in _meta.collect which call collects it.',
].join(' ');

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * A fresh MCP server for one request of `era`, its tool calls and resources scoped to the caller's
 * site. With `asking` (2025, the streaming endpoint), the transport a tool call may send an
 * elicitation on (on its own event stream).
 */
function mcpServer(caller: Caller, era: Era, asking: WebStandardStreamableHTTPServerTransport | null): Server {
  const options: ServerOptions = {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false },
      // research may run as a task; tasks are read by id, never listed.
      ...(era === 'modern'
        ? { extensions: { [TASKS_EXTENSION]: {} } }
        : { tasks: { requests: { tools: { call: {} } } } }),
    },
    instructions: INSTRUCTIONS,
    cacheHints: CACHE_HINTS,
    // JSON Schema validation is for elicitation answers the SDK waits for; approval.ts reads its answers itself.
    jsonSchemaValidator: {
      getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server validates no input' }),
    },
  };
  const server = new Server({ name: 'content-research', version: '0.2.0' }, options);
  server.setRequestHandler('tools/list', async () => ({ tools: mcpTools() }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, task } = request.params;
    const args = request.params.arguments ?? {};
    // The one place a tool's name is a string: from here on it names a tool.
    if (!isMcpToolName(name)) throw unknownTool(name);
    if (era === 'modern') return modernCall(caller, name, args, ctx);
    const ask: Ask | undefined = asking
      ? (message) => asking.send(message, { relatedRequestId: ctx.mcpReq.id })
      : undefined;
    return legacyCall(caller, name, args, ctx, ask, task);
  });
  server.setRequestHandler('resources/list', async () => ({ resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler('resources/read', async (request) => readResource(caller, request.params.uri));
  if (era === 'modern') {
    server.setRequestHandler('tasks/get', { params: TaskParams }, (params, ctx) =>
      getTask(caller, params.taskId, ctx.mcpReq.envelope),
    );
    for (const method of ['tasks/update', 'tasks/cancel'])
      server.setRequestHandler(method, { params: TaskParams }, (params, ctx) =>
        acknowledgeTask(caller, params.taskId, ctx.mcpReq.envelope),
      );
  } else {
    server.setRequestHandler('tasks/get', { params: TaskParams }, (params) => getLegacyTask(caller, params.taskId));
    server.setRequestHandler('tasks/result', { params: TaskParams }, (params) =>
      legacyTaskResult(caller, params.taskId),
    );
  }
  return server;
}

const toolCalls = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).filter(
    (m): m is Json & { params: Json } => isJsonObject(m) && m.method === 'tools/call' && isJsonObject(m.params),
  );

/** Whether a JSON-RPC message (or batch) is a tools/call that asks for progress: its reply is then an event stream. */
const asksForProgress = (body: unknown) =>
  toolCalls(body).some((m) => isJsonObject(m.params._meta) && m.params._meta.progressToken !== undefined);

/** The reply to one POST: its web Response (its body may still be streaming), and what ends the server once it is sent. */
export interface McpReply {
  response: Response;
  close(): Promise<void>;
}

/** Each 2026-07-28 request's caller, for the factory that the handler (made once per container) calls. */
const callers = new WeakMap<Request, Caller>();

/** The 2026-07-28 endpoint: a fresh server per request (the SDK's), answered as JSON unless the call sends progress first. */
let modern: ReturnType<typeof createMcpHandler> | undefined;
const modernHandler = () =>
  (modern ??= createMcpHandler(
    ({ requestInfo }) => {
      const caller = requestInfo && callers.get(requestInfo);
      if (!caller) throw new Bug('An MCP request reached the server without its caller');
      return mcpServer(caller, 'modern', null);
    },
    { legacy: 'reject' },
  ));

const noServer = { close: async () => undefined };

/**
 * A 2025 request: a call with a progress token is answered as an event stream (its notifications,
 * then its result); any other as JSON. On the streaming endpoint (`streaming`), a client that answers
 * elicitations gets a session id saying so at initialize, and its tool calls are event streams too, on
 * which a call over the approval threshold asks the user; the client's answers, POSTed on their own,
 * are taken here.
 */
async function handleLegacy(request: Request, body: unknown, caller: Caller, streaming: boolean): Promise<McpReply> {
  const asking = streaming && answersElicitation(request);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(body) && !(asking && toolCalls(body).length > 0),
  });
  const server = mcpServer(caller, 'legacy', asking ? transport : null);
  await server.connect(transport);
  const close = () => server.close();
  try {
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (streaming && response.ok && declaresElicitation(body))
      response.headers.set('mcp-session-id', elicitingSession());
    return { response, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * One POST of the MCP endpoint, after its caller was checked: a 2025 client's answer to an approval
 * question (the streaming endpoint asks), a 2025 request, or a 2026-07-28 one, told apart as the SDK
 * tells them (a request that carries the protocol version in its `_meta` is 2026-07-28).
 */
export async function handleMcp(request: Request, caller: Caller, streaming: boolean): Promise<McpReply> {
  const message = await readMessage(request);
  if ('refusal' in message) return { response: message.refusal, ...noServer };
  const { body } = message;
  // A token's call it has no scope for is refused before anything runs.
  const refusal = scopeRefusal(caller, body);
  if (refusal)
    return {
      response: Response.json(refusal.toBody(), { status: refusal.status, headers: refusal.headers }),
      ...noServer,
    };
  // Answers come only to the endpoint that asks (a client answers where it was asked).
  const answers = streaming ? approvalAnswers(body) : null;
  if (answers) {
    if (await takeAnswers(caller, answers)) return { response: new Response(null, { status: 202 }), ...noServer };
    const error = new ApiError('validation_failed', 'The answer is not to a question this site was asked and awaits', {
      issues: [{ path: 'id', message: 'no approval question of this site awaits this id' }],
    });
    return { response: Response.json(error.toBody(), { status: error.status }), ...noServer };
  }
  if (await isLegacyRequest(request, body)) return handleLegacy(request, body, caller, streaming);
  callers.set(request, caller);
  return { response: await modernHandler().fetch(request, { parsedBody: body }), ...noServer };
}
