import {
  isMcpExtraTool,
  isMcpToolName,
  toolSpec,
  type McpExtraTool,
  type McpToolName,
  type ToolDeclaration,
} from '@cm/contract';

/* Which tools page by a cursor of their own, and which run as tasks: what the listing, the paging and the task handlers all ask. */

type McpFacts = NonNullable<ToolDeclaration['mcp']>;

/** The extras' (a research tool's are in its declaration). */
const EXTRA_FACTS: Record<McpExtraTool, McpFacts> = {
  get_job: {},
  get_usage: {},
  find_pages: { ownCursor: true },
  list_revisions: { ownCursor: true },
  // A publish's reply is small: never paged.
  restore_revision: { ownCursor: true },
};

/** A name past the dispatch is a tool's; a stored task's may be any (an unknown one has no facts). */
const factsOf = (name: McpToolName): McpFacts =>
  isMcpExtraTool(name) ? EXTRA_FACTS[name] : (toolSpec(name)?.mcp ?? {});

/** The tools with a `cursor` of their own, whose pages are theirs. */
export const hasOwnCursor = (name: McpToolName): boolean => factsOf(name).ownCursor === true;

/** Whether a tool runs as a task; asked too of the tool a stored task names. */
export const runsAsTask = (name: string): boolean => isMcpToolName(name) && factsOf(name).task === true;
