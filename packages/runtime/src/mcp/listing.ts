import * as z from 'zod/mini';
import type { Tool } from '@modelcontextprotocol/server';
import {
  FindPagesInput,
  FindPagesResult,
  GetJobInput,
  JobView,
  LIMITS,
  ListedRevisions,
  ListRevisionsInput,
  RestoredPage,
  RestoreRevisionInput,
  mcpHintsOf,
  TOOL_LIST,
  TOOL_META_FIELDS,
  UsageQuery,
  UsageReport,
  BudgetView,
  isJsonObject,
  MCP_EXTRA_TOOLS,
  MCP_APPS,
  type McpExtraTool,
  type McpToolName,
  type ToolDeclaration,
} from '@cm/contract';
import type { Json } from './route-calls';
import { hasOwnCursor, runsAsTask } from './tool-kinds';

/* tools/list: every tool with its description, hints and JSON Schemas, from the contract's zod schemas. */

/** A schema without its descriptions. */
const undescribed = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(undescribed);
  if (!isJsonObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== 'description')
      .map(([key, value]) => [key, undescribed(value)]),
  );
};

/** An integer's bound that is only JavaScript's safe range (zod's `int()` writes it): it says nothing to a client. */
const safeRangeBound = (node: Json, key: string, value: unknown): boolean =>
  node.type === 'integer' &&
  ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) ||
    (key === 'maximum' && value === Number.MAX_SAFE_INTEGER));

/**
 * A JSON Schema for MCP: no `$schema`, an object at the root, and open objects (results may grow
 * fields). In results, the run's fields every tool has (TOOL_META_FIELDS) go undescribed: the
 * server's instructions describe them once; and no integer carries the safe range's bounds. Both keep
 * tools/list small.
 */
function mcpSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _ignored, ...out } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const openValue = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(openValue);
    return isJsonObject(node) ? openObject(node) : node;
  };
  const runFields = (properties: Json): Json =>
    Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [
        key,
        TOOL_META_FIELDS.includes(key) ? undescribed(value) : openValue(value),
      ]),
    );
  const openObject = (node: Json): Json =>
    Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !(io === 'output' && key === 'additionalProperties' && value === false))
        .filter(([key, value]) => !safeRangeBound(node, key, value))
        .map(([key, value]) => [
          key,
          io === 'output' && key === 'properties' && isJsonObject(value) ? runFields(value) : openValue(value),
        ]),
    );
  return { ...openObject(out), type: 'object' };
}

/** What tools/list says of a tool: a research tool's declaration, or an extra's listing. */
type McpToolListing = Pick<ToolDeclaration, 'title' | 'description' | 'input' | 'result' | 'mcp'>;

const EXTRA_TOOLS: Record<McpExtraTool, McpToolListing> = {
  get_job: {
    title: 'Get a research job',
    description: `A queued research job (from research or serp_landscape analyze): queued, running, succeeded with its result, or failed. wait_ms (max ${LIMITS.waitMsMax}) waits for it to end; while it runs, call again after retry_after_ms.`,
    input: GetJobInput,
    result: JobView,
  },
  get_usage: {
    title: 'Paid provider usage',
    description:
      "This site's paid provider calls and their cost, summed per tool and provider, between from (default: the start of this UTC month) and to (default: now); and its budget: per UTC day and month the limit, spent and reserved amounts and when it resets (a paid call that would pass a limit is refused with budget_exceeded).",
    input: UsageQuery,
    result: z.extend(UsageReport, { budget: BudgetView }),
  },
  find_pages: {
    title: 'Find published pages',
    description: `The site's published pages (articles, questions) with their ids, for internal links [text](page:<id>) and related_*_ids. Newest updated_at first. query: every word must appear in the slug or title; one call looks through at most ${LIMITS.findPagesScan} pages, so an empty answer with a next_cursor means: search on with it.`,
    input: FindPagesInput,
    result: FindPagesResult,
  },
  list_revisions: {
    title: "List a page's revisions",
    description: `A page's revisions (versions its publishes replaced; the newest ${LIMITS.revisionsKept}, ${LIMITS.revisionsKeptDays} days each), newest first, and the live_revision. limit max ${LIMITS.revisionsPageMax}.`,
    input: ListRevisionsInput,
    result: ListedRevisions,
  },
  restore_revision: {
    title: 'Roll a page back to a revision',
    description:
      'Publishes a revision again, updated now; what it replaces is kept as a revision. Answers as a publish.',
    input: RestoreRevisionInput,
    result: RestoredPage,
  },
};

/** The `cursor` argument of a tool whose large results are kept and paged (docs/api.md#mcp-results). */
const PAGE_CURSOR = {
  type: 'string',
  description: "A paged result's next_cursor (not paid again)",
};

/** The MCP App that draws a tool's result, by the tool: linked by `_meta.ui.resourceUri` (and the key older hosts read). */
function appMetaOf(name: McpToolName): Tool['_meta'] {
  const app = Object.values(MCP_APPS).find((candidate) => candidate.tools.some((tool) => tool === name));
  return app ? { ui: { resourceUri: app.uri }, 'ui/resourceUri': app.uri } : undefined;
}

let listing: Tool[] | undefined;

/** tools/list: every registry tool with its schemas, then the extras; made once per container. */
export function mcpTools(): Tool[] {
  const describe = (name: McpToolName, { title, description, input, result, mcp }: McpToolListing): Tool => {
    const note = mcp?.note;
    const inputSchema = mcpSchema(input, 'input');
    if (!hasOwnCursor(name)) inputSchema.properties = { ...inputSchema.properties, cursor: PAGE_CURSOR };
    const meta = appMetaOf(name);
    const execution: Tool['execution'] = runsAsTask(name) ? { taskSupport: 'optional' } : undefined;
    return {
      name,
      title,
      description: note ? `${description} ${note}` : description,
      inputSchema,
      outputSchema: mcpSchema(result, 'output'),
      annotations: { title, ...mcpHintsOf(name) },
      ...(execution ? { execution } : {}),
      ...(meta ? { _meta: meta } : {}),
    };
  };
  return (listing ??= [
    ...TOOL_LIST.map((declaration) => describe(declaration.name, declaration)),
    ...MCP_EXTRA_TOOLS.map((name) => describe(name, EXTRA_TOOLS[name])),
  ]);
}
