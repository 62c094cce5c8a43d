import type { McpToolName } from '@cm/contract';

/* Which tools page by a cursor of their own, and which run as tasks: what the listing, the paging and the task handlers all ask. */

/** The tools with a `cursor` of their own, whose pages are theirs. */
const OWN_CURSOR: readonly McpToolName[] = ['db_select', 'find_pages'];
export const hasOwnCursor = (name: McpToolName): boolean => OWN_CURSOR.includes(name);

/** The tools a client may run as a task. */
const TASK_TOOLS: readonly McpToolName[] = ['research'];
/** Whether a tool runs as a task; asked too of the tool a stored task names. */
export const runsAsTask = (name: string): boolean => TASK_TOOLS.some((tool) => tool === name);
