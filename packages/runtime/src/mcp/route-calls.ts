import {
  ApiError,
  isJsonObject,
  ORIGIN_VERIFY_HEADER,
  toolFunction,
  type FunctionName,
  type OAuthScope,
  type ToolName,
} from '@cm/contract';
import type { ElicitationStore, ResultStore } from '@cm/store';
import { baseUrlOf, type ApiEvent } from '../http/request';
import type { Credential } from './access';
import { invoke } from './invoke';

/* A tool call as a call of a route: the event the HTTP API would send to the route's function, and its reply. */

export type Json = Record<string, unknown>;

/**
 * What one MCP request's tool calls run with: the caller's key and site, the event they came in, and the
 * stores and logger the handler hands in. The server is a file of its own in the bundle (loaded with the
 * first request), which must not make a second DynamoDB client or log without the request's keys.
 */
export interface Caller {
  event: ApiEvent;
  /** The caller's key or token, as the functions a call runs take it. */
  credential: Credential;
  /** A token's scopes; undefined for the API key, which may do everything its site may. */
  scopes?: OAuthScope[];
  siteId: number;
  /** Tool results too large for one reply, kept for their pages. */
  results: ResultStore;
  /** Approval questions asked by elicitation (the streaming endpoint's), and their answers. */
  elicitations: ElicitationStore;
  logger: { error(message: string, attributes: Record<string, unknown>): void };
}

/** A tool's refusal: the error object REST answers, carried to an `isError` result. */
export class ToolFailure extends Error {
  constructor(readonly body: Json) {
    super(typeof body.message === 'string' ? body.message : 'failed');
  }
}

/** The event the HTTP API would send to `fn` for this route, with the caller's key or token. */
export function routeEvent(
  caller: Caller,
  method: string,
  path: string,
  routeKey: string,
  parts: { body?: unknown; query?: Record<string, string>; params?: Record<string, string> },
): ApiEvent {
  const { event } = caller;
  const query = parts.query && Object.keys(parts.query).length ? parts.query : undefined;
  // The deployment's address (PUBLIC_BASE_URL, else the request's), so what the function links to is
  // served there: the streaming endpoint's own host (a function URL) serves only /mcp.
  const base = new URL(baseUrlOf(event));
  const sent = event.headers[ORIGIN_VERIFY_HEADER];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: query ? new URLSearchParams(query).toString() : '',
    headers: {
      ...caller.credential,
      'content-type': 'application/json',
      host: base.host,
      'x-forwarded-proto': base.protocol.slice(0, -1),
      'user-agent': event.headers['user-agent'] ?? 'mcp',
      // The route's function checks it as it would a request CloudFront sent on: the one this request
      // came with, which its own function checked (so no function that only calls routes reads the secret).
      ...(sent === undefined ? {} : { [ORIGIN_VERIFY_HEADER]: sent }),
    },
    ...(query ? { queryStringParameters: query } : {}),
    ...(parts.params ? { pathParameters: parts.params } : {}),
    requestContext: {
      ...event.requestContext,
      domainName: base.host,
      routeKey,
      http: { ...event.requestContext.http, method, path },
    },
    ...(parts.body !== undefined ? { body: JSON.stringify(parts.body) } : {}),
    isBase64Encoded: false,
  };
}

/** Invokes `fn` for a route: its JSON reply when 2xx; its error object (a ToolFailure) otherwise. */
export async function callRoute(fn: FunctionName, event: ApiEvent): Promise<Json> {
  const reply = await invoke(fn, event);
  let body: unknown;
  try {
    body = reply.body
      ? JSON.parse(reply.isBase64Encoded ? Buffer.from(reply.body, 'base64').toString('utf8') : reply.body)
      : {};
  } catch {
    throw new ApiError('internal_error', `${fn} answered ${reply.statusCode} without JSON`);
  }
  // Every route answers an object: its result, or the error shape.
  if (!isJsonObject(body))
    throw new ApiError('internal_error', `${fn} answered ${reply.statusCode} without a JSON object`);
  const status = reply.statusCode ?? 200;
  if (status >= 400) throw new ToolFailure(body);
  return body;
}

/** A research tool's call: its own function, invoked as `POST /v1/tools/{name}` would run it. */
export const invokeTool = (caller: Caller, name: ToolName, args: Json) => {
  const path = `/v1/tools/${name}`;
  return callRoute(toolFunction(name), routeEvent(caller, 'POST', path, `POST ${path}`, { body: args }));
};

/** A job as `GET /v1/jobs/{job_id}` answers it (the jobs function, scoped to the caller's site), waiting up to `waitMs` for it to end. */
export const readJob = (caller: Caller, jobId: string, waitMs?: number) =>
  callRoute(
    'jobs',
    routeEvent(caller, 'GET', `/v1/jobs/${encodeURIComponent(jobId)}`, 'GET /v1/jobs/{job_id}', {
      params: { job_id: jobId },
      query: waitMs === undefined ? {} : { wait_ms: String(waitMs) },
    }),
  );
