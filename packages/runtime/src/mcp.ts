import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  ApiError,
  FindPagesInput,
  FindPagesResult,
  functionEnvName,
  GetJobInput,
  JobView,
  LIMITS,
  MCP_PATH,
  MCP_TOOL_HINTS,
  MCP_TOOL_NOTES,
  TOOL_FUNCTIONS,
  TOOLS,
  toolSpec,
  UsageQuery,
  UsageReport,
  BudgetView,
  type FunctionName,
  type McpExtraTool,
  type McpToolName,
  type PageList,
  type ToolName,
} from '@cm/contract';
import { findPages, type ListingReader } from '@cm/publishing';
import { siteOfKey } from './api';
import { getConfig } from './config';
import { logger } from './observability';
import { baseUrlOf, routeHandler, routesOf, validate, type ApiEvent, type ApiResult, type Handlers } from './http';

/*
 * The MCP endpoint (docs/api.md#mcp): Streamable HTTP, stateless (a fresh server per request, no
 * session id), JSON responses. A tool call is run by the tool's own function, invoked with the event
 * the HTTP API would send for `POST /v1/tools/{name}`: the same validation, workflow, meter, usage
 * ledger and reply, under that function's own least-privilege role.
 */

/* ---------- Invoking another function of the route table ---------- */

/** Runs a route function with an API Gateway payload 2.0 event: Lambda Invoke on AWS, in-process in the local stack. */
export type FunctionInvoker = (fn: FunctionName, event: ApiEvent) => Promise<ApiResult>;

let lambda: LambdaClient | undefined;

/** Lambda Invoke (RequestResponse) of the function named in `FUNCTION_<NAME>`. */
const lambdaInvoker: FunctionInvoker = async (fn, event) => {
  const variable = functionEnvName(fn);
  const name = getConfig().functionNames[fn];
  if (!name) throw new Error(`${variable} is not set: the mcp function is not wired to invoke ${fn}`);
  lambda ??= new LambdaClient({ region: getConfig().region });
  const out = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(event)) }));
  const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
  if (out.FunctionError) throw new Error(`${fn} failed (${out.FunctionError}): ${text.slice(0, 500)}`);
  return JSON.parse(text) as ApiResult;
};

let invoker: FunctionInvoker | undefined;

/** The local stack runs the functions in-process; undefined puts Lambda Invoke back. */
export function setFunctionInvoker(next: FunctionInvoker | undefined): void {
  invoker = next;
}

const invoke: FunctionInvoker = (fn, event) => (invoker ?? lambdaInvoker)(fn, event);

/* ---------- The Lambda event ⇄ web Request seam ---------- */

/** The web `Request` of an API Gateway payload 2.0 event. */
export function toWebRequest(event: ApiEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  // The transport reads only the path of this URL; a forwarded scheme other than http counts as https.
  const proto = event.headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  const url = `${proto}://${event.requestContext.domainName}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  if (!URL.canParse(url)) throw new ApiError('bad_request', 'The request names no valid host');
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || event.body === null || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(url, { method, headers, body });
}

/** The payload 2.0 result of a web `Response`. */
export async function fromWebResponse(response: Response): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { statusCode: response.status, headers, body: await response.text() };
}

/* ---------- Origins and keys ---------- */

const LOOPBACK = /^https?:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Whether a browser page of `origin` may call: loopback origins, the deployment's public base URL
 * (PUBLIC_BASE_URL) and MCP_ALLOWED_ORIGINS (comma-separated). The request's own Host is not trusted:
 * a DNS-rebound name would pass.
 */
export function originAllowed(origin: string): boolean {
  if (LOOPBACK.test(origin)) return true;
  const allowed = [getConfig().publicBaseUrl, ...getConfig().mcpAllowedOrigins]
    .map((o) => o?.trim().replace(/\/+$/, ''))
    .filter((o): o is string => !!o)
    .map((o) => {
      try {
        return new URL(o).origin;
      } catch {
        return o;
      }
    });
  return allowed.includes(origin.replace(/\/+$/, ''));
}

/** The API key of `X-API-Key`, else of `Authorization: Bearer <key>`. */
export function apiKeyOf(headers: ApiEvent['headers']): string | undefined {
  const key = headers['x-api-key']?.trim();
  if (key) return key;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return bearer?.[1]?.trim() || undefined;
}

const unauthorized = (message: string) => new ApiError('unauthorized', message, {}, { 'www-authenticate': 'Bearer' });

/* ---------- Tools ---------- */

/** The result a tool's JSON may be at most, in bytes, before it is paged or cut. */
const resultMaxBytes = (): number => getConfig().mcpResultMaxBytes;

type Json = Record<string, unknown>;

/** A tool's refusal: the error object REST answers, carried to an `isError` result. */
class ToolFailure extends Error {
  constructor(readonly body: Json) {
    super(typeof body.message === 'string' ? body.message : 'failed');
  }
}

/** A JSON Schema for MCP: no `$schema`, an object at the root, and open objects (results may grow fields). */
function mcpSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _ignored, ...out } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  const open = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(open);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node as Json)
        .filter(([key, value]) => !(io === 'output' && key === 'additionalProperties' && value === false))
        .map(([key, value]) => [key, open(value)]),
    );
  };
  const result = open(out) as Json;
  return { ...result, type: 'object' };
}

const EXTRA_TOOLS: Record<McpExtraTool, { description: string; input: z.ZodMiniType; result: z.ZodMiniType }> = {
  get_job: {
    description: `A queued research job (from research or serp_landscape analyze): queued, running, succeeded with its result, or failed. wait_ms (max ${LIMITS.waitMsMax}) waits for it to end; while it runs, call again after retry_after_ms.`,
    input: GetJobInput,
    result: JobView,
  },
  get_usage: {
    description:
      "This site's paid provider calls and their cost, summed per tool and provider, between from (default: the start of this UTC month) and to (default: now); and its budget: per UTC day and month the limit, spent and reserved amounts and when it resets (a paid call that would pass a limit is refused with budget_exceeded).",
    input: UsageQuery,
    result: z.extend(UsageReport, { budget: BudgetView }),
  },
  find_pages: {
    description: `The site's published pages (articles, questions) with their ids, for internal links [text](page:<id>) and related_*_ids. Newest updated_at first. query: every word must appear in the slug or title; one call looks through at most ${LIMITS.findPagesScan} pages, so an empty answer with a next_cursor means: search on with it.`,
    input: FindPagesInput,
    result: FindPagesResult,
  },
};

let listing: Tool[] | undefined;

/** tools/list: every registry tool with its schemas, then the extras; made once per container. */
function mcpTools(): Tool[] {
  const describe = (name: McpToolName, description: string, input: z.ZodMiniType, result: z.ZodMiniType): Tool => {
    const { title, ...annotations } = MCP_TOOL_HINTS[name];
    const note = MCP_TOOL_NOTES[name];
    return {
      name,
      title,
      description: note ? `${description} ${note}` : description,
      inputSchema: mcpSchema(input, 'input'),
      outputSchema: mcpSchema(result, 'output'),
      annotations: { title, ...annotations },
    };
  };
  return (listing ??= [
    ...TOOLS.map((spec) => describe(spec.name, spec.description, spec.input, spec.result)),
    ...(Object.keys(EXTRA_TOOLS) as McpExtraTool[]).map((name) =>
      describe(name, EXTRA_TOOLS[name].description, EXTRA_TOOLS[name].input, EXTRA_TOOLS[name].result),
    ),
  ]);
}

/** What one MCP request's tool calls run with: the caller's key and site, and the event they came in. */
interface Caller {
  event: ApiEvent;
  apiKey: string;
  siteId: number;
}

/** The event the HTTP API would send to `fn` for this route, with the caller's key. */
function routeEvent(
  caller: Caller,
  method: string,
  path: string,
  routeKey: string,
  parts: { body?: unknown; query?: Record<string, string>; params?: Record<string, string> },
): ApiEvent {
  const { event } = caller;
  const query = parts.query && Object.keys(parts.query).length ? parts.query : undefined;
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: query ? new URLSearchParams(query).toString() : '',
    headers: {
      'x-api-key': caller.apiKey,
      'content-type': 'application/json',
      host: event.headers.host ?? event.requestContext.domainName,
      'x-forwarded-proto': event.headers['x-forwarded-proto'] ?? 'https',
      'user-agent': event.headers['user-agent'] ?? 'mcp',
    },
    ...(query ? { queryStringParameters: query } : {}),
    ...(parts.params ? { pathParameters: parts.params } : {}),
    requestContext: { ...event.requestContext, routeKey, http: { ...event.requestContext.http, method, path } },
    ...(parts.body !== undefined ? { body: JSON.stringify(parts.body) } : {}),
    isBase64Encoded: false,
  };
}

/** Invokes `fn` for a route: its JSON reply when 2xx; its error object (a ToolFailure) otherwise. */
async function callRoute(fn: FunctionName, event: ApiEvent): Promise<Json> {
  const reply = await invoke(fn, event);
  let body: unknown;
  try {
    body = reply.body
      ? JSON.parse(reply.isBase64Encoded ? Buffer.from(reply.body, 'base64').toString('utf8') : reply.body)
      : {};
  } catch {
    throw new ApiError('internal_error', `${fn} answered ${reply.statusCode} without JSON`);
  }
  const status = reply.statusCode ?? 200;
  if (status >= 400) throw new ToolFailure(body as Json);
  return body as Json;
}

const runTool = (caller: Caller, name: ToolName, args: Json) => {
  const path = `/v1/tools/${name}`;
  return callRoute(TOOL_FUNCTIONS[name], routeEvent(caller, 'POST', path, `POST ${path}`, { body: args }));
};

const parse = <S extends z.ZodMiniType>(schema: S, args: Json): z.output<S> => validate(schema, args, 'body');

const getJob = (caller: Caller, args: Json) => {
  const input = parse(GetJobInput, args);
  const path = `/v1/jobs/${encodeURIComponent(input.job_id)}`;
  return callRoute(
    'jobs',
    routeEvent(caller, 'GET', path, 'GET /v1/jobs/{job_id}', {
      params: { job_id: input.job_id },
      query: input.wait_ms === undefined ? {} : { wait_ms: String(input.wait_ms) },
    }),
  );
};

const getUsage = async (caller: Caller, args: Json) => {
  const input = parse(UsageQuery, args);
  const query = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const [usage, budget] = await Promise.all([
    callRoute('usage', routeEvent(caller, 'GET', '/v1/usage', 'GET /v1/usage', { query })),
    callRoute('usage', routeEvent(caller, 'GET', '/v1/budget', 'GET /v1/budget', {})),
  ]);
  return { ...usage, budget };
};

/** find_pages: the publishing workflow, reading the listing through the `read` function as GET /articles, /questions. */
const findPagesOf = (caller: Caller, args: Json) => {
  const readListing: ListingReader = async (type, { limit, cursor, status }) => {
    const path = `/${type}s`;
    const query: Record<string, string> = { limit: String(limit) };
    if (cursor) query.cursor = cursor;
    if (status) query.status = status;
    return (await callRoute('read', routeEvent(caller, 'GET', path, `GET ${path}`, { query }))) as PageList;
  };
  return findPages(caller.siteId, parse(FindPagesInput, args), readListing, baseUrlOf(caller.event));
};

/** Where a result's provenance and cost are, for `_meta`: the tool's own, else stored data at no cost. */
function metaOf(result: Json): Json {
  return {
    cost_usd: typeof result.cost_usd === 'number' ? result.cost_usd : 0,
    cached: typeof result.cached === 'boolean' ? result.cached : true,
    data_source: typeof result.data_source === 'string' ? result.data_source : 'database',
  };
}

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The longest array in `value` (a path of keys to it), the one to cut when a result is too large. */
function longestArray(value: unknown, path: string[] = []): { path: string[]; length: number; bytes: number } | null {
  if (!value || typeof value !== 'object') return null;
  let best: { path: string[]; length: number; bytes: number } | null = null;
  if (Array.isArray(value)) best = { path, length: value.length, bytes: sizeOf(value) };
  const entries = Array.isArray(value) ? [] : Object.entries(value as Json);
  for (const [key, child] of entries) {
    const found = longestArray(child, [...path, key]);
    if (found && (!best || found.bytes > best.bytes)) best = found;
  }
  return best;
}

/**
 * A result within the size limit. db_select and find_pages page: the call runs again with a smaller
 * limit and its next_cursor continues. Any other result has its largest array cut to fit, and says so.
 */
async function fitted(caller: Caller, name: string, args: Json, result: Json): Promise<{ result: Json; note?: Json }> {
  const max = resultMaxBytes();
  const size = sizeOf(result);
  if (size <= max) return { result };
  if (name === 'db_select' && Array.isArray(result.rows) && result.rows.length > 1) {
    let limit = result.rows.length;
    let page = result;
    let pageSize = size;
    while (pageSize > max && limit > 1) {
      limit = Math.max(1, Math.floor((limit * max) / pageSize / 1.1));
      page = await runTool(caller, name, { ...args, limit });
      pageSize = sizeOf(page);
    }
    return {
      result: page,
      note: {
        paged: true,
        limit,
        max_bytes: max,
        hint: 'The result was over the size limit: fewer rows were returned; call again with next_cursor for the rest',
      },
    };
  }
  const cut = longestArray(result);
  if (!cut || cut.path.length === 0) return { result };
  const copy = structuredClone(result);
  const parent = cut.path.slice(0, -1).reduce<Json>((node, key) => node[key] as Json, copy);
  const key = cut.path[cut.path.length - 1]!;
  const items = parent[key] as unknown[];
  const total = items.length;
  let keep = Math.floor((total * max) / size);
  parent[key] = items.slice(0, keep);
  while (keep > 0 && sizeOf(copy) > max) parent[key] = items.slice(0, --keep);
  return {
    result: copy,
    note: {
      truncated: { field: cut.path.join('.'), returned: keep, total },
      max_bytes: max,
      hint: 'The result was over the size limit and was cut; ask for less (a smaller limit or scope)',
    },
  };
}

const errorResult = (body: Json): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(body) }],
});

async function callTool(caller: Caller, name: string, args: Json): Promise<CallToolResult> {
  try {
    let result: Json;
    const tool = toolSpec(name);
    if (tool) result = await runTool(caller, tool.name, args);
    else if (name === 'get_job') result = await getJob(caller, args);
    else if (name === 'get_usage') result = await getUsage(caller, args);
    else if (name === 'find_pages') result = await findPagesOf(caller, args);
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
    callTool(caller, request.params.name, (request.params.arguments ?? {}) as Json),
  );
  return server;
}

/** One POST /mcp request, after its origin and key were checked. */
async function handleMcp(request: Request, caller: Caller): Promise<Response> {
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

const notAllowed = () =>
  new ApiError(
    'method_not_allowed',
    `${MCP_PATH} takes POST only: the endpoint is stateless and streams nothing`,
    {},
    { allow: 'POST' },
  );

const handlers: Handlers = {
  [`GET ${MCP_PATH}`]: async () => {
    throw notAllowed();
  },
  [`DELETE ${MCP_PATH}`]: async () => {
    throw notAllowed();
  },
  [`POST ${MCP_PATH}`]: async ({ event, observation }) => {
    const origin = event.headers.origin;
    if (origin !== undefined && !originAllowed(origin))
      throw new ApiError('origin_not_allowed', `Origin ${origin} may not call this endpoint`, { origin });
    const apiKey = apiKeyOf(event.headers);
    if (!apiKey) throw unauthorized('Send the API key as X-API-Key or Authorization: Bearer');
    const siteId = await siteOfKey(apiKey);
    if (siteId === null) throw unauthorized('The API key is not valid');
    observation.keys({ site_id: siteId });
    const response = await handleMcp(toWebRequest(event), { event, apiKey, siteId });
    return fromWebResponse(response);
  },
};

/** The mcp function's Lambda handler: observation and error replies as every route, then the endpoint. */
export function mcpHandler(): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  routesOf('mcp', handlers);
  return routeHandler(handlers, new WeakMap());
}
