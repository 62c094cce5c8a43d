import * as z from 'zod/mini';
import { RowId, TableName } from '../cm-tables';
import { LIMITS } from '../limits';
import { ToolMeta } from './shared';
import { defineTool } from './declaration';

export const DbDeleteInput = z.object({ table: TableName, id: RowId });
export type DbDeleteInput = z.output<typeof DbDeleteInput>;

export const DbDeleteResult = z.object({
  ...ToolMeta,
  table: TableName,
  id: z.int(),
  deleted: z.literal(true),
  cascaded: z.record(z.string(), z.int()).check(z.meta({ description: 'Rows deleted with it, per table' })),
});

export const DB_DELETE = defineTool({
  name: 'db_delete',
  title: 'Delete a cm_* row',
  description: `Delete a row by id. Deleting a keyword or a topic also deletes its cm_topic_keywords links; deleting a cm_competitors row stops its monitoring and frees its place under the cap of ${LIMITS.activeCompetitors}; a topic or page, its rank tracking.`,
  input: DbDeleteInput,
  result: DbDeleteResult,
  mcp: { note: 'Deleting cannot be undone: confirm with the user.' },
  grants: { table: 'readWriteDelete' },
});
