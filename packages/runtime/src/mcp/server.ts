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
import type { ApiResult } from '../http';
import { EXTRA_TOOL_CALLS } from './extra-tools';
import { mcpTools } from './listing';
import { fitted, nextPage, type Fitted } from './paging';
import { errorResult, toolReply } from './reply';
import { PROGRESS_EVERY_MS, progressAt, waitOf } from './progress';
import { readResource, RESOURCE_TEMPLATES, RESOURCES } from './resources';
import { invokeTool, ToolFailure, type Caller, type Json } from './route-calls';
import { getTask, startTask, taskResult } from './tasks';
import { hasOwnCursor, TASK_TOOLS } from './tool-kinds';
import { fromWebResponse } from './web-seam';

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

async function callTool(
  caller: Caller,
  name: string,
  args: Json,
  progressToken: string | number | undefined,
  notify: (notification: ServerNotification) => Promise<void>,
): Promise<CallToolResult> {
  try {
    let shown: Fitted;
    if (typeof args.cursor === 'string' && !hasOwnCursor(name)) shown = await nextPage(caller, name, args.cursor);
    else {
      const result = await reportingProgress(name, args, progressToken, notify, () => resultOf(caller, name, args));
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
  "A paid tool takes estimate: true to answer its price without spending; a call over the site's approval threshold answers approval_required with a confirm token to send back.",
  'A result too large for one reply is paged: call the same tool with { cursor: next_cursor } for the next page, or read page.result_uri in pieces.',
  'research and serp_landscape analyze report progress while they wait when given a progress token; a result still running says in _meta.collect which call collects it.',
].join(' ');

/** A fresh MCP server for one request, its tool calls and resources scoped to the caller's site. */
function mcpServer(caller: Caller): Server {
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
      // JSON Schema validation is for elicitation answers, which a stateless endpoint never asks for.
      jsonSchemaValidator: {
        getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server asks for no input' }),
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
    return callTool(caller, name, args, request.params._meta?.progressToken, (n) => extra.sendNotification(n));
  });
  server.setRequestHandler(GetTaskRequestSchema, async (request) => getTask(caller, request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => taskResult(caller, request.params.taskId));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(caller, request.params.uri));
  return server;
}

/** Whether a JSON-RPC message (or batch) is a tools/call that asks for progress: its reply is then an event stream. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      isJsonObject(m) &&
      m.method === 'tools/call' &&
      isJsonObject(m.params) &&
      isJsonObject(m.params._meta) &&
      m.params._meta.progressToken !== undefined,
  );
}

/**
 * One POST /mcp request, after its origin and key were checked. A call with a progress token is
 * answered as an event stream (its notifications, then its result); any other as JSON.
 */
export async function handleMcp(request: Request, caller: Caller): Promise<ApiResult> {
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    body = undefined;
  }
  const server = mcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(body),
  });
  await server.connect(transport);
  try {
    // An event stream ends with the last reply: read it whole before the server closes.
    return await fromWebResponse(
      await transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body }),
    );
  } finally {
    await server.close();
  }
}
