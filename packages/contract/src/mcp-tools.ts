import { TOOL_NAMES, type ToolName } from './route-table';

/*
 * The MCP endpoint's tools by name, with their titles and hints: no schemas, so what needs only to
 * know a tool (which scope a call asks of a token) does not build the MCP tools' schemas at load.
 */

export const MCP_EXTRA_TOOLS = ['get_job', 'get_usage', 'find_pages', 'monitoring'] as const;
export type McpExtraTool = (typeof MCP_EXTRA_TOOLS)[number];
export type McpToolName = ToolName | McpExtraTool;
export const MCP_TOOL_NAMES: readonly McpToolName[] = [...TOOL_NAMES, ...MCP_EXTRA_TOOLS];

/** A name a client sent, checked once where a call comes in: what it names from there on is a tool. */
export const isMcpToolName = (name: unknown): name is McpToolName => MCP_TOOL_NAMES.some((tool) => tool === name);
/** One of the tools the MCP endpoint answers itself, which no route of the route table serves. */
export const isMcpExtraTool = (name: McpToolName): name is McpExtraTool =>
  MCP_EXTRA_TOOLS.some((tool) => tool === name);

/** MCP tool annotations: hints a client may show or act on (it must not trust them for safety). */
export interface McpToolHints {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Reaches a paid provider outside the service. */
  openWorldHint: boolean;
}

const hints = (
  title: string,
  readOnly: boolean,
  destructive: boolean,
  idempotent: boolean,
  openWorld: boolean,
): McpToolHints => ({
  title,
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
});

/**
 * Each tool's title and hints. Read-only: recall, db_select and the three extras. Destructive: db_delete.
 * Idempotent where a repeat changes nothing more (a repeated research query is answered from storage, a
 * repeated add_competitor returns the same row, a second delete finds nothing). Open world: the tools
 * that may call a paid provider.
 */
export const MCP_TOOL_HINTS: Record<McpToolName, McpToolHints> = {
  research: hints('Research a topic (keywords, web, reddit, url)', false, false, true, true),
  recall: hints("Recall the site's stored research", true, false, true, false),
  get_keywords: hints('Pull keyword metrics', false, false, true, true),
  serp_landscape: hints('Keyword and competitor landscape', false, false, false, true),
  serp_keyword_refresh: hints('Refresh one keyword SERP (daily quota)', false, false, false, true),
  serp_backlinks: hints('Backlink profiles and link gap', false, false, true, true),
  add_competitor: hints('Track a competitor domain', false, false, true, true),
  track_rankings: hints('Track keyword rankings over time', false, false, true, true),
  db_select: hints('Read cm_* rows', true, false, true, false),
  db_insert: hints('Insert a cm_* row', false, false, false, false),
  db_delete: hints('Delete a cm_* row', false, true, true, false),
  get_job: hints('Get a research job', true, false, true, false),
  get_usage: hints('Paid provider usage', true, false, true, false),
  find_pages: hints('Find published pages', true, false, true, false),
  monitoring: hints('Monitoring: cost, pause', false, false, true, false),
};
