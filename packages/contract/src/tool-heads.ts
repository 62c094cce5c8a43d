/*
 * Each research tool's head: its name, the function that serves it, and what it does. No imports and
 * no schemas: every function reads these (a tool's route, the scope it asks of a token, the paid
 * tools' rate rule), while a tool's schemas (tools/<name>.ts) stay in its own function's bundle.
 */

/**
 * What a tool does, from which its MCP hints and OAuth scope follow: reads only, writes or deletes
 * the site's rows, may call a paid provider (and so takes `estimate` and `confirm`), or publishes the
 * site's pages (an MCP tool only: restore_revision).
 */
export type ToolKind = 'read' | 'write' | 'delete' | 'paid' | 'publish';

export interface ToolHead {
  /** The Lambda function that serves it: each tool its own. */
  fn: string;
  kind: ToolKind;
  /** A repeat changes nothing more (a repeated research query is answered from storage). */
  idempotent: boolean;
}

/** The research tools by name, in the order they are listed. */
export const TOOL_HEADS = {
  research: { fn: 'research', kind: 'paid', idempotent: true },
  recall: { fn: 'recall', kind: 'read', idempotent: true },
  get_keywords: { fn: 'get-keywords', kind: 'paid', idempotent: true },
  serp_landscape: { fn: 'serp-landscape', kind: 'paid', idempotent: false },
  serp_keyword_refresh: { fn: 'serp-keyword-refresh', kind: 'paid', idempotent: false },
  serp_backlinks: { fn: 'serp-backlinks', kind: 'paid', idempotent: true },
  add_competitor: { fn: 'add-competitor', kind: 'paid', idempotent: true },
  track_rankings: { fn: 'track-rankings', kind: 'paid', idempotent: true },
  search_traffic: { fn: 'search-traffic', kind: 'read', idempotent: true },
  db_select: { fn: 'db-select', kind: 'read', idempotent: true },
  db_insert: { fn: 'db-insert', kind: 'write', idempotent: false },
  db_delete: { fn: 'db-delete', kind: 'delete', idempotent: true },
} as const satisfies Record<string, ToolHead>;

type Heads = typeof TOOL_HEADS;
export type ToolName = keyof Heads;
/** The functions that serve the tools. */
export type ToolFunction = Heads[ToolName]['fn'];
/** The tools that may call a paid provider (MCP's openWorldHint): each takes `estimate` and `confirm`. */
export type PaidTool = { [N in ToolName]: Heads[N]['kind'] extends 'paid' ? N : never }[ToolName];

export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOL_HEADS, name);
export const TOOL_NAMES: readonly ToolName[] = Object.keys(TOOL_HEADS).filter(isToolName);

export const isPaidTool = (name: string): name is PaidTool => isToolName(name) && TOOL_HEADS[name].kind === 'paid';
export const PAID_TOOLS: readonly PaidTool[] = TOOL_NAMES.filter(isPaidTool);

/** The function that serves each tool. */
export const toolFunction = (name: ToolName): ToolFunction => TOOL_HEADS[name].fn;

export const isToolFunction = (fn: string): fn is ToolFunction => TOOL_NAMES.some((name) => toolFunction(name) === fn);

/** The tool a tool's function serves. */
export function toolOfFunction(fn: ToolFunction): ToolName {
  const tool = TOOL_NAMES.find((name) => toolFunction(name) === fn);
  // ToolFunction is the union of the heads' functions: one of them has it.
  if (tool === undefined) throw new Error(`${fn} is no tool's function`);
  return tool;
}
