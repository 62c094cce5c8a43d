import { TOOL_HEADS, TOOL_NAMES, type ToolHead, type ToolName } from './tool-heads';

/*
 * The MCP endpoint's tools by name, with their titles and hints: no schemas, so what needs only to
 * know a tool (which scope a call asks of a token) does not build the MCP tools' schemas at load.
 */

/** The tools only agents need, which the MCP endpoint answers on the route functions REST calls. */
const MCP_EXTRA_HEADS = {
  get_job: { kind: 'read', idempotent: true },
  get_usage: { kind: 'read', idempotent: true },
  find_pages: { kind: 'read', idempotent: true },
  list_revisions: { kind: 'read', idempotent: true },
  // A rollback publishes: a repeat finds the content live and keeps no revision.
  restore_revision: { kind: 'publish', idempotent: true },
} as const satisfies Record<string, Omit<ToolHead, 'fn'>>;

export type McpExtraTool = keyof typeof MCP_EXTRA_HEADS;
export type McpToolName = ToolName | McpExtraTool;

/** One of the tools the MCP endpoint answers itself, which no route of the route table serves. */
export const isMcpExtraTool = (name: unknown): name is McpExtraTool =>
  typeof name === 'string' && Object.hasOwn(MCP_EXTRA_HEADS, name);
export const MCP_EXTRA_TOOLS: readonly McpExtraTool[] = Object.keys(MCP_EXTRA_HEADS).filter(isMcpExtraTool);
export const MCP_TOOL_NAMES: readonly McpToolName[] = [...TOOL_NAMES, ...MCP_EXTRA_TOOLS];

/** A name a client sent, checked once where a call comes in: what it names from there on is a tool. */
export const isMcpToolName = (name: unknown): name is McpToolName => MCP_TOOL_NAMES.some((tool) => tool === name);

/** An MCP tool's head: what it does, from which its hints and the scope it asks of a token follow. */
export const mcpHeadOf = (name: McpToolName): Omit<ToolHead, 'fn'> =>
  isMcpExtraTool(name) ? MCP_EXTRA_HEADS[name] : TOOL_HEADS[name];

/** MCP tool annotations: hints a client may show or act on (it must not trust them for safety). */
export interface McpToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Reaches a paid provider outside the service. */
  openWorldHint: boolean;
}

/**
 * A tool's hints, from its head. Read-only: the tools that only read. Destructive: the ones that
 * delete. Idempotent where a repeat changes nothing more (a repeated research query is answered from
 * storage, a repeated add_competitor returns the same row, a second delete finds nothing). Open world:
 * the tools that may call a paid provider.
 */
export const mcpHintsOf = (name: McpToolName): McpToolHints => {
  const { kind, idempotent } = mcpHeadOf(name);
  return {
    readOnlyHint: kind === 'read',
    destructiveHint: kind === 'delete',
    idempotentHint: idempotent,
    openWorldHint: kind === 'paid',
  };
};
