import {
  ApiError,
  fieldError,
  LIMITS,
  TABLE_FIELDS,
  validationError,
  type DbDeleteInput,
  type DbInsertInput,
  type DbSelectInput,
  type TableName,
} from '@cm/contract';
import { normalizeKeyword } from '@cm/core';
import { RowConflict, type StoredRow } from '@cm/store';
import { competitorDomain, insertCompetitor, untrackCompetitor } from './competitors';
import { DATABASE, rowNotFound, rowScore, siteOf, type ToolContext } from './context';

/* db_select, db_insert, db_delete over the cm_* tables, every row scoped to the caller's site. */

/** Fields every row has besides its table's own, and the ones the service sets on some tables. */
const ASSIGNED_FIELDS: Record<TableName, readonly string[]> = {
  cm_topics: [],
  cm_pages: [],
  cm_keywords: ['data_source'],
  cm_topic_keywords: [],
  cm_competitors: ['added_at', 'incomplete'],
};

const fieldsOf = (table: TableName) => [
  'id',
  'created_at',
  'updated_at',
  ...Object.keys(TABLE_FIELDS[table].shape),
  ...ASSIGNED_FIELDS[table],
];

const invalid = (path: string, message: string) => fieldError('body', path, message);

export async function dbSelect(ctx: ToolContext, input: DbSelectInput) {
  const where = input.where ?? {};
  const known = fieldsOf(input.table);
  for (const field of Object.keys(where)) {
    if (!known.includes(field))
      throw invalid(`where.${field}`, `${input.table} has no field ${field}; fields: ${known.join(', ')}`);
  }
  const { id, ...rest } = where;
  if (id !== undefined) {
    // By id: one read, filtered like any other field.
    const row = typeof id === 'number' ? await ctx.store.rows.get(ctx.siteId, input.table, id) : null;
    const match = row && Object.entries(rest).every(([field, value]) => (row[field] ?? null) === value);
    return { data_source: DATABASE, table: input.table, rows: match ? [row] : [], next_cursor: null };
  }
  const page = await ctx.store.rows.select(ctx.siteId, input.table, where, input.limit, input.cursor);
  return { data_source: DATABASE, table: input.table, ...page };
}

/** Checks that a referenced row exists on the caller's site; `400` naming the field otherwise. */
async function referenced(
  ctx: ToolContext,
  table: TableName,
  id: number | null | undefined,
  path: string,
): Promise<StoredRow | null> {
  if (id === null || id === undefined) return null;
  const row = await ctx.store.rows.get(ctx.siteId, table, id);
  if (!row) throw invalid(path, `no ${table} row with id ${id}`);
  return row;
}

/** The row as stored, after the table's own rules: normalized keys, defaults, references. */
async function prepareRow(ctx: ToolContext, table: TableName, raw: Record<string, unknown>) {
  const parsed = TABLE_FIELDS[table].safeParse(raw);
  if (!parsed.success) {
    throw validationError(
      'body',
      parsed.error.issues.map((issue) => ({ ...issue, path: ['row', ...issue.path] })),
    );
  }
  const row = parsed.data as Record<string, unknown>;
  const warnings: string[] = [];
  switch (table) {
    case 'cm_keywords': {
      row.keyword = normalizeKeyword(String(row.keyword));
      row.locale ??= (await siteOf(ctx)).locale;
      row.data_source = 'caller';
      await referenced(ctx, 'cm_pages', row.page_id as number | null, 'row.page_id');
      break;
    }
    case 'cm_pages': {
      if (typeof row.primary_keyword === 'string') row.primary_keyword = normalizeKeyword(row.primary_keyword);
      row.secondary_keywords = (row.secondary_keywords as string[]).map(normalizeKeyword);
      await referenced(ctx, 'cm_topics', row.topic_id as number | undefined, 'row.topic_id');
      break;
    }
    case 'cm_topic_keywords': {
      await referenced(ctx, 'cm_topics', row.topic_id as number, 'row.topic_id');
      const keyword = await referenced(ctx, 'cm_keywords', row.keyword_id as number, 'row.keyword_id');
      row.score ??= rowScore(keyword!);
      break;
    }
    case 'cm_competitors': {
      row.domain = competitorDomain(String(row.domain), 'row.domain');
      warnings.push(
        row.active
          ? `This competitor row is incomplete: it counts toward the cap of ${LIMITS.activeCompetitors}, but its monitoring has not started, so it has no backlink profile until the next daily run. add_competitor with its domain completes it (monitoring starts at once); add_competitor is the way to add a competitor.`
          : 'This competitor row is inactive: it takes no place under the cap and is not monitored. add_competitor with its domain tracks it.',
      );
      break;
    }
  }
  return { row, warnings };
}

const alreadyExists = (table: TableName, id: number) =>
  new ApiError('already_exists', `${table} already has that row: id ${id}`, { table, id });

export async function dbInsert(ctx: ToolContext, input: DbInsertInput) {
  const { row, warnings } = await prepareRow(ctx, input.table, input.row);
  try {
    const stored =
      input.table === 'cm_competitors'
        ? await insertCompetitor(ctx, row as Record<string, unknown> & { domain: string; active: boolean })
        : await ctx.store.rows.insert(ctx.siteId, input.table, row, ctx.now.toISOString());
    return { data_source: DATABASE, table: input.table, row: stored, warnings };
  } catch (error) {
    if (error instanceof RowConflict) throw alreadyExists(input.table, error.existingId);
    throw error;
  }
}

/** Links of a deleted keyword or topic go with it: a link to nothing would only mislead. */
const CASCADES: Partial<Record<TableName, { table: TableName; field: string }>> = {
  cm_keywords: { table: 'cm_topic_keywords', field: 'keyword_id' },
  cm_topics: { table: 'cm_topic_keywords', field: 'topic_id' },
};

export async function dbDelete(ctx: ToolContext, input: DbDeleteInput) {
  const deleted = await ctx.store.rows.delete(ctx.siteId, input.table, input.id);
  if (!deleted) throw rowNotFound(input.table, input.id);
  if (input.table === 'cm_competitors') await untrackCompetitor(ctx, deleted);
  const cascaded: Record<string, number> = {};
  const cascade = CASCADES[input.table];
  if (cascade) {
    const linked = await ctx.store.rows.byField(ctx.siteId, cascade.table, cascade.field, input.id);
    await Promise.all(linked.map((row) => ctx.store.rows.delete(ctx.siteId, cascade.table, row.id)));
    cascaded[cascade.table] = linked.length;
  }
  return { data_source: DATABASE, table: input.table, id: input.id, deleted: true as const, cascaded };
}
