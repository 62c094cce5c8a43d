import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { LIMITS, type McpToolName } from '@cm/contract';
import { KEPT_FOR, RESULTS_URI, type Fitted } from './paging';
import { collectOf } from './progress';
import type { Json } from './route-calls';

/* A tool result as MCP answers it: structuredContent, its text, and `_meta` with its cost, pages and what is left to collect. */

/**
 * Where a result's provenance and cost are, for `_meta`: the tool's own, else stored data at no cost.
 * An estimate spent nothing and answered from nothing stored: it says so, not `cached`.
 */
function metaOf(result: Json): Json {
  const dataSource = typeof result.data_source === 'string' ? result.data_source : 'database';
  if (result.estimate === true) return { estimate: true, cost_usd: 0, data_source: dataSource };
  return {
    cost_usd: typeof result.cost_usd === 'number' ? result.cost_usd : 0,
    cached: typeof result.cached === 'boolean' ? result.cached : true,
    data_source: dataSource,
  };
}

export const errorResult = (body: Json): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(body) }],
});

/** A call refused before it runs, as a JSON-RPC error (`-32602`) whose `data` is the error object REST answers. */
export const refusedCall = (body: Json) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, typeof body.message === 'string' ? body.message : 'Refused', body);

/** The reply of a tool call (or a task's result): the result as fitted, with what `_meta` and the content say of it. */
export function toolReply(name: McpToolName, args: Json, { result, note, resultId }: Fitted): CallToolResult {
  const meta: Json = { ...metaOf(result), ...(note ?? {}) };
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result) }];
  const collect = collectOf(name, args, result);
  if (collect) {
    meta.collect = collect;
    meta.retry_after_ms = LIMITS.jobRetryAfterMs;
    content.push({ type: 'text', text: JSON.stringify({ collect }) });
  }
  if (note) content.push({ type: 'text', text: JSON.stringify(note) });
  if (resultId)
    content.push({
      type: 'resource_link',
      uri: `${RESULTS_URI}${resultId}`,
      name: `${name} result`,
      description: `The whole result as the call answered it, kept ${KEPT_FOR}: read it in pieces`,
      mimeType: 'application/json',
    });
  return { structuredContent: result, content, _meta: meta };
}
