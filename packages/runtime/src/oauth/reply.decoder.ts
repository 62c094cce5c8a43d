import * as z from 'zod/mini';
import type { ApiResult } from '../http/request';

/* What serverless-http answers for a payload 2.0 event: the HTTP API's result, Set-Cookie headers in `cookies`. */

const ServedReply = z.object({
  statusCode: z.number(),
  headers: z.optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
  body: z.optional(z.string()),
  isBase64Encoded: z.optional(z.boolean()),
  cookies: z.optional(z.array(z.string())),
});

export function decodeServedReply(value: unknown): ApiResult {
  const parsed = z.safeParse(ServedReply, value);
  if (!parsed.success)
    throw new Error(`the authorization server answered no HTTP API result: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
