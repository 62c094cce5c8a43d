import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, LIMITS, MCP_EXTRA_TOOLS, toolSpec, type McpExtraTool } from '@cm/contract';
import { logger } from '../observability';
import { EXTRA_TOOL_CALLS } from './extra-tools';
import { fitted } from './fitting';
import { mcpTools } from './listing';
import { invokeTool, ToolFailure, type Caller, type Json } from './route-calls';

/* The MCP server of one request: tools/list, and tools/call with its result, `_meta` and errors. */

/** Where a result's provenance and cost are, for `_meta`: the tool's own, else stored data at no cost. */
function metaOf(result: Json): Json {
  return {
    cost_usd: typeof result.cost_usd === 'number' ? result.cost_usd : 0,
    cached: typeof result.cached === 'boolean' ? result.cached : true,
    data_source: typeof result.data_source === 'string' ? result.data_source : 'database',
  };
}

const errorResult = (body: Json): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(body) }],
});

const isExtraTool = (name: string): name is McpExtraTool => MCP_EXTRA_TOOLS.some((tool) => tool === name);

async function callTool(caller: Caller, name: string, args: Json): Promise<CallToolResult> {
  try {
    let result: Json;
    const tool = toolSpec(name);
    if (tool) result = await invokeTool(caller, tool.name, args);
    else if (isExtraTool(name)) result = await EXTRA_TOOL_CALLS[name](caller, args);
    else
      throw new ApiError('unknown_tool', `There is no tool named ${JSON.stringify(name)}; tools/list lists them`, {
        name,
      });
    const { result: shown, note } = await fitted(caller, name, args, result);
    const meta: Json = { ...metaOf(shown), ...(note ?? {}) };
    if ((shown.status === 'queued' || shown.status === 'running') && typeof shown.job_id === 'string')
      meta.retry_after_ms = LIMITS.jobRetryAfterMs;
    const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(shown) }];
    if (note) content.push({ type: 'text', text: JSON.stringify(note) });
    return { structuredContent: shown, content, _meta: meta };
  } catch (error) {
    if (error instanceof ToolFailure) return errorResult(error.body);
    if (error instanceof ApiError) return errorResult(error.toBody());
    logger.error('mcp tool call failed', { tool: name, error: error instanceof Error ? error : String(error) });
    return errorResult({ error: 'internal_error', code: 'internal_error', message: 'Internal error' });
  }
}

/** A fresh MCP server for one request, its tool calls scoped to the caller's site. */
function mcpServer(caller: Caller): Server {
  const server = new Server(
    { name: 'content-research', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(caller, request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

/** One POST /mcp request, after its origin and key were checked. */
export async function handleMcp(request: Request, caller: Caller): Promise<Response> {
  const server = mcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
