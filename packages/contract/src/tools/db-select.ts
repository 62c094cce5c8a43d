import * as z from 'zod/mini';
import { StoredNumber, TableName } from '../cm-tables';
import { LIMITS } from '../limits';
import { Row, ToolMeta } from './shared';
import { defineTool } from './declaration';

const ScalarValue = z.union([z.string(), StoredNumber, z.boolean(), z.null()]);

export const DbSelectInput = z.object({
  table: TableName,
  where: z
    .optional(z.record(z.string(), ScalarValue))
    .check(z.meta({ description: 'Equality on row fields, all must hold' })),
  limit: z._default(z.int().check(z.minimum(1), z.maximum(LIMITS.dbSelectMax)), LIMITS.dbSelectDefault),
  cursor: z.optional(z.string().check(z.minLength(1))),
});
export type DbSelectInput = z.output<typeof DbSelectInput>;

export const DbSelectResult = z.object({
  ...ToolMeta,
  table: TableName,
  rows: z.array(Row),
  next_cursor: z.nullable(z.string()),
});

export const DB_SELECT = defineTool({
  name: 'db_select',
  title: 'Read cm_* rows',
  description:
    'Read rows of cm_topics, cm_pages, cm_keywords, cm_topic_keywords or cm_competitors, ordered by id, with optional equality filters and a cursor.',
  input: DbSelectInput,
  result: DbSelectResult,
  mcp: { ownCursor: true },
  grants: { table: 'read' },
});
