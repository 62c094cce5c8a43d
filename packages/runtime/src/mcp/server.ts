import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { ApiError, isJsonObject, MCP_EXTRA_TOOLS, toolSpec, type McpExtraTool } from '@cm/contract';
import {
  answersElicitation,
  approvalAnswers,
  askApproval,
  declaresElicitation,
  elicitingSession,
  takeAnswers,
  type Ask,
} from './approval';
import { EXTRA_TOOL_CALLS } from './extra-tools';
import { mcpTools } from './listing';
import { fitted, nextPage, type Fitted } from './paging';
import { errorResult, toolReply } from './reply';
import { PROGRESS_EVERY_MS, progressAt, waitOf } from './progress';
import { readResource, RESOURCE_TEMPLATES, RESOURCES } from './resources';
import { invokeTool, ToolFailure, type Caller, type Json } from './route-calls';
import { getTask, startTask, taskResult } from './tasks';
import { hasOwnCursor, TASK_TOOLS } from './tool-kinds';

/* The MCP server of one request: tools, resources, and tools/call with its pages, progress, `_meta` and errors. */

const isExtraTool = (name: string): name is McpExtraTool => MCP_EXTRA_TOOLS.some((tool) => tool === name);

/** A tool's result, as its own function (or the MCP-only call) answers it. */
async function resultOf(caller: Caller, name: string, args: Json): Promise<Json> {
  const tool = toolSpec(name);
  if (tool) return invokeTool(caller, tool.name, args);
  if (isExtraTool(name)) return EXTRA_TOOL_CALLS[name](caller, args);
  throw new ApiError('unknown_tool', `There is no tool named ${JSON.stringify(name)}; tools/list lists them`, { name });
}

/** Progress notifications every PROGRESS_EVERY_MS while `work` runs, when the client gave a token and the call waits. */
async function reportingProgress<T>(
  name: string,
  args: Json,
  progressToken: string | number | undefined,
  notify: (notification: ServerNotification) => Promise<void>,
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

/** A tool's result; a call over the approval threshold first asks the user, when `ask` can (approval.ts). */
async function approvedResultOf(
  caller: Caller,
  name: string,
  args: Json,
  ask: Ask | undefined,
  signal: AbortSignal,
): Promise<Json> {
  try {
    return await resultOf(caller, name, args);
  } catch (error) {
    const refusal = error instanceof ToolFailure ? error.body : null;
    if (!ask || refusal?.error !== 'approval_required' || typeof refusal.confirm !== 'string') throw error;
    const action = await askApproval(caller, ask, name, refusal, signal);
    // No decision (no answer in time, or the client could not ask), or nobody is left to answer: the
    // refusal stands, with its token, for the agent to confirm later; a call given up is never made.
    if (action === null || signal.aborted) throw error;
    if (action !== 'accept')
      throw new ToolFailure({
        error: 'approval_declined',
        code: 'approval_declined',
        message: `The user ${action === 'decline' ? 'declined' : 'dismissed'} the call: it was not made and nothing was spent`,
        estimate: refusal.estimate,
      });
    return resultOf(caller, name, { ...args, confirm: refusal.confirm });
  }
}

async function callTool(
  caller: Caller,
  name: string,
  args: Json,
  progressToken: string | number | undefined,
  notify: (notification: ServerNotification) => Promise<void>,
  ask: Ask | undefined,
  signal: AbortSignal,
): Promise<CallToolResult> {
  try {
    let shown: Fitted;
    if (typeof args.cursor === 'string' && !hasOwnCursor(name)) shown = await nextPage(caller, name, args.cursor);
    else {
      const result = await reportingProgress(name, args, progressToken, notify, () =>
        approvedResultOf(caller, name, args, ask, signal),
      );
      shown = await fitted(caller, name, args, result);
    }
    return toolReply(name, args, shown);
  } catch (error) {
    if (error instanceof ToolFailure) return errorResult(error.body);
    if (error instanceof ApiError) return errorResult(error.toBody());
    caller.logger.error('mcp tool call failed', { tool: name, error: error instanceof Error ? error : String(error) });
    return errorResult({ error: 'internal_error', code: 'internal_error', message: 'Internal error' });
  }
}

/** What a client may put before the model once: what every result carries, and how large and long work is answered. */
const INSTRUCTIONS = [
  'Every tool result carries its run: data_source ("sandbox", the provider\'s name, or "database" for stored data), cost_usd (what its paid provider calls cost), cached (true: no provider was called), budget (what the tightest budget window has left; null remaining_usd: no limit) and simulated (true: sandbox list prices, not billed); _meta repeats cost_usd, cached and data_source.',
  "A paid tool takes estimate: true to answer its price without spending; a call over the site's approval threshold asks the user by elicitation where the client answers them on the streaming endpoint, and otherwise answers approval_required with a confirm token to send back.",
  'A result too large for one reply is paged: call the same tool with { cursor: next_cursor } for the next page, or read page.result_uri in pieces.',
  'research and serp_landscape analyze report progress while they wait when given a progress token; a result still running says in _meta.collect which call collects it.',
].join(' ');

/**
 * A fresh MCP server for one request, its tool calls and resources scoped to the caller's site. With
 * `asking`, the transport a tool call may send an elicitation on (on its own event stream).
 */
function mcpServer(caller: Caller, asking: WebStandardStreamableHTTPServerTransport | null): Server {
  const server = new Server(
    { name: 'content-research', version: '0.1.0' },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        // research may run as a task (tools/call with `task`); tasks are read by id, never listed.
        tasks: { requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      // JSON Schema validation is for elicitation answers the SDK waits for; approval.ts reads its answers itself.
      jsonSchemaValidator: {
        getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server validates no input' }),
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, task } = request.params;
    const args = request.params.arguments ?? {};
    if (task) {
      if (!TASK_TOOLS.includes(name))
        throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task; call it without task`);
      return startTask(caller, name, args);
    }
    const ask: Ask | undefined = asking
      ? (message) => asking.send(message, { relatedRequestId: extra.requestId })
      : undefined;
    const { progressToken } = request.params._meta ?? {};
    return callTool(caller, name, args, progressToken, (n) => extra.sendNotification(n), ask, extra.signal);
  });
  server.setRequestHandler(GetTaskRequestSchema, async (request) => getTask(caller, request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => taskResult(caller, request.params.taskId));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(caller, request.params.uri));
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

/**
 * One POST /mcp request, after its origin and key were checked. A call with a progress token is
 * answered as an event stream (its notifications, then its result); any other as JSON. On the
 * streaming endpoint (`streaming`), a client that answers elicitations gets a session id saying so at
 * initialize, and its tool calls are event streams too, on which a call over the approval threshold
 * asks the user; the client's answers, POSTed on their own, are taken here.
 */
export async function handleMcp(request: Request, caller: Caller, streaming: boolean): Promise<McpReply> {
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    body = undefined;
  }
  const noServer = { close: async () => undefined };
  // Answers come only to the endpoint that asks (a client answers where it was asked).
  const answers = streaming ? approvalAnswers(body) : null;
  if (answers) {
    if (await takeAnswers(caller, answers)) return { response: new Response(null, { status: 202 }), ...noServer };
    const error = new ApiError('validation_failed', 'The answer is not to a question this site was asked and awaits', {
      issues: [{ path: 'id', message: 'no approval question of this site awaits this id' }],
    });
    return { response: Response.json(error.toBody(), { status: error.status }), ...noServer };
  }
  const asking = streaming && answersElicitation(request);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(body) && !(asking && toolCalls(body).length > 0),
  });
  const server = mcpServer(caller, asking ? transport : null);
  await server.connect(transport);
  const close = () => server.close();
  try {
    const response = await transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
    const offer = streaming && response.ok && declaresElicitation(body);
    if (offer) response.headers.set('mcp-session-id', elicitingSession());
    return { response, close };
  } catch (error) {
    await close();
    throw error;
  }
}
