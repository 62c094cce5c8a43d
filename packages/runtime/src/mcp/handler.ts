import type { Writable } from 'node:stream';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import { ApiError, MCP_OAUTH_PATH, MCP_PATH } from '@cm/contract';
import type { ApiEvent, ApiResult } from '../http/request';
import { routeHandler, routesOf, type Handlers } from '../http/router';
import { logger } from '../observability';
import { getMcpStores } from '../services';
import { methodsOf } from '../unrouted';
import { checkCaller, checkOAuthCaller, type CheckedCaller } from './access';
import type { McpReply } from './server';
import { fromWebResponse, headersOf, toWebRequest } from './web-seam';

/*
 * The mcp functions' routes: POST of each MCP endpoint once its caller is checked; GET and DELETE
 * refused. MCP_PATH takes the API key; MCP_OAUTH_PATH an OAuth access token too (docs/api.md#oauth).
 */

/** `405`: the endpoint at `path` takes POST (and, for a browser's preflight, the OAuth endpoint OPTIONS). */
const notAllowed = (path: string) =>
  new ApiError(
    'method_not_allowed',
    'The MCP endpoint takes POST only: it is stateless and opens no stream of its own',
    {},
    { allow: path === MCP_OAUTH_PATH ? methodsOf(path).join(', ') : 'POST' },
  );

/**
 * The endpoint reads its own body (message.ts): a body that is not JSON is a JSON-RPC parse error, not
 * the REST error shape, and is read only once the caller is checked. Its size limit still holds here.
 */
const MCP_BODY = { json: false };

/** What becomes of an MCP reply: read whole (API Gateway), or handed on to stream (the function URL). */
type Deliver = (event: ApiEvent, reply: McpReply) => Promise<ApiResult>;

function mcpRoutes(streaming: boolean, deliver: Deliver): Handlers {
  const post =
    (check: (event: ApiEvent) => Promise<CheckedCaller>): Handlers[string] =>
    async ({ event, observation }) => {
      const caller = await check(event);
      observation.keys({ site_id: caller.siteId });
      // The MCP server (the SDK, the tool listing, the Lambda client) loads with the first call, not at cold start.
      const { handleMcp } = await import('./load-server');
      const reply = await handleMcp(toWebRequest(event), { event, ...caller, ...getMcpStores(), logger }, streaming);
      return deliver(event, reply);
    };
  const refused: Handlers[string] = async ({ event }) => {
    throw notAllowed(event.rawPath);
  };
  const handlers: Handlers = {
    [`POST ${MCP_PATH}`]: post(checkCaller),
    [`GET ${MCP_PATH}`]: refused,
    [`DELETE ${MCP_PATH}`]: refused,
    [`POST ${MCP_OAUTH_PATH}`]: post(checkOAuthCaller),
    [`GET ${MCP_OAUTH_PATH}`]: refused,
    [`DELETE ${MCP_OAUTH_PATH}`]: refused,
  };
  routesOf('mcp', handlers);
  return handlers;
}

/** The mcp function's Lambda handler, behind API Gateway: observation and error replies as every route, then the endpoint. */
export function mcpHandler(): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  const handlers = mcpRoutes(false, async (_event, reply) => {
    try {
      // API Gateway sends a reply only when it is whole: an event stream is read to its end first.
      return await fromWebResponse(reply.response);
    } finally {
      await reply.close();
    }
  });
  return routeHandler(handlers, new WeakMap(), undefined, MCP_BODY);
}

/** Where a streamed reply goes: its status and headers first, then its body, written as it comes. */
export type OpenStream = (statusCode: number, headers: Record<string, string>) => Writable;

/** A streaming handler's core, whatever carries its stream: Lambda's response stream, or the local server's response. */
export type McpStreamHandler = (event: ApiEvent, context: Context, open: OpenStream) => Promise<void>;

const textHeaders = (headers: ApiResult['headers']) =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, String(value)]));

/**
 * The mcp-stream function's handler, behind a Lambda function URL in response-streaming mode
 * (docs/api.md#the-streaming-endpoint): the same routes, checks and error replies, but an event
 * stream is written as it is sent, so progress arrives while a call waits and a call can ask the user.
 */
export function mcpStreamHandler(): McpStreamHandler {
  const handed = new WeakMap<ApiEvent, McpReply>();
  const handlers = mcpRoutes(true, async (event, reply) => {
    handed.set(event, reply);
    return { statusCode: reply.response.status, headers: headersOf(reply.response) };
  });
  const run = routeHandler(handlers, new WeakMap(), undefined, MCP_BODY);
  return async (event, context, open) => {
    // A function URL sends every path to the function: MCP_PATH is its endpoint (it takes the key only).
    event.routeKey = event.rawPath === MCP_PATH ? `${event.requestContext.http.method} ${MCP_PATH}` : '$default';
    const result = await run(event, context);
    const reply = handed.get(event);
    try {
      const out = open(result.statusCode ?? 200, textHeaders(result.headers));
      // A reply handed on has no body in the result; a refusal (401, 405, …) has its own.
      if (reply?.response.body && result.body === undefined) await pipeline(Readable.fromWeb(reply.response.body), out);
      else out.end(result.body ?? '');
    } catch (error) {
      // The client went (or the stream broke) mid-reply: nobody is left to answer; closing the server
      // below stops what the call still does (a wait for an approval, progress).
      logger.warn('the MCP reply stream ended early', { route: event.routeKey, error });
    } finally {
      await reply?.close();
    }
  };
}
