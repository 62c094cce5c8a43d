import * as z from 'zod/mini';
import { PageList, type FunctionName } from '@cm/contract';
import type { ApiResult } from '../http/request';

/* What the route functions answer the mcp function: a Lambda Invoke's payload, and a listing read for find_pages. */

/** The parts of an API Gateway reply that a route call reads. */
const RouteReply = z.object({
  statusCode: z.optional(z.number()),
  body: z.optional(z.string()),
  isBase64Encoded: z.optional(z.boolean()),
});

/** A Lambda Invoke's payload: the API Gateway reply the route function returned. */
export function decodeRouteReply(fn: FunctionName, payload: string): ApiResult {
  const parsed = z.safeParse(RouteReply, JSON.parse(payload));
  if (!parsed.success) throw new Error(`${fn} answered no API Gateway reply: ${payload.slice(0, 500)}`);
  return parsed.data;
}

/** The listing the `read` function answered (GET /articles, /questions). */
export function decodePageList(body: unknown): PageList {
  const parsed = z.safeParse(PageList, body);
  if (!parsed.success) throw new Error(`read answered no page list: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
