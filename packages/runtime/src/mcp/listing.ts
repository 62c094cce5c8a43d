import * as z from 'zod/mini';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  FindPagesInput,
  FindPagesResult,
  GetJobInput,
  JobView,
  LIMITS,
  MCP_TOOL_HINTS,
  MCP_TOOL_NOTES,
  TOOL_LIST,
  UsageQuery,
  UsageReport,
  BudgetView,
  isJsonObject,
  MCP_EXTRA_TOOLS,
  type McpExtraTool,
  type McpToolName,
} from '@cm/contract';
import type { Json } from './route-calls';

/* tools/list: every tool with its description, hints and JSON Schemas, from the contract's zod schemas. */

/** A JSON Schema for MCP: no `$schema`, an object at the root, and open objects (results may grow fields). */
function mcpSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _ignored, ...out } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const openValue = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(openValue);
    return isJsonObject(node) ? openObject(node) : node;
  };
  const openObject = (node: Json): Json =>
    Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !(io === 'output' && key === 'additionalProperties' && value === false))
        .map(([key, value]) => [key, openValue(value)]),
    );
  return { ...openObject(out), type: 'object' };
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
export function mcpTools(): Tool[] {
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
    ...TOOL_LIST.map((spec) => describe(spec.name, spec.description, spec.input, spec.result)),
    ...MCP_EXTRA_TOOLS.map((name) =>
      describe(name, EXTRA_TOOLS[name].description, EXTRA_TOOLS[name].input, EXTRA_TOOLS[name].result),
    ),
  ]);
}
