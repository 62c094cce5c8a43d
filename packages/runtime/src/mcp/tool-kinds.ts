/* Which tools page by a cursor of their own, and which run as tasks: what the listing, the paging and the task handlers all ask. */

/** The tools with a `cursor` of their own, whose pages are theirs. */
const OWN_CURSOR: readonly string[] = ['db_select', 'find_pages'];
export const hasOwnCursor = (name: string): boolean => OWN_CURSOR.includes(name);

/** The tools a client may run as a task. */
export const TASK_TOOLS: readonly string[] = ['research'];
