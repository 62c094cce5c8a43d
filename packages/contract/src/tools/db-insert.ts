import * as z from 'zod/mini';
import { TableName } from '../cm-tables';
import { LIMITS } from '../limits';
import { Row, ToolMeta } from './shared';
import { defineTool } from './declaration';

export const DbInsertInput = z.object({
  table: TableName,
  row: z
    .record(z.string(), z.unknown())
    .check(z.meta({ description: "The row's fields, as the table's schema in docs/api.md#tables has them" })),
});
export type DbInsertInput = z.output<typeof DbInsertInput>;

export const DbInsertResult = z.object({ ...ToolMeta, table: TableName, row: Row, warnings: z.array(z.string()) });

export const DB_INSERT = defineTool({
  name: 'db_insert',
  title: 'Insert a cm_* row',
  description: `Insert a row; the integer id comes from the site's sequence for that table. cm_keywords is unique per (locale, keyword), cm_topic_keywords per (topic_id, keyword_id). A cm_competitors row is incomplete: it takes a place under the cap of ${LIMITS.activeCompetitors} but is not monitored until add_competitor completes it; with active: false it is stored inactive, outside the cap.`,
  input: DbInsertInput,
  result: DbInsertResult,
  grants: { table: 'readWriteDelete' },
});
