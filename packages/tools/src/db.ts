import {
  ApiError,
  fieldError,
  LIMITS,
  STORED_ROW_SHAPES,
  TABLE_FIELDS,
  validationError,
  type DbDeleteInput,
  type DbInsertInput,
  type DbSelectInput,
  type RowOf,
  type TableName,
} from '@cm/contract';
import { normalizeKeyword } from '@cm/core';
import * as z from 'zod/mini';
import { RowConflict } from '@cm/store';
import { competitorDomain, insertCompetitor, untrackCompetitor } from './competitors';
import { DATABASE, rowNotFound, rowScore, siteOf, type ToolContext } from './context';

/* db_select, db_insert, db_delete over the cm_* tables, every row scoped to the caller's site. */

/** A table's fields, as db_select names them: the id and times every row has first, then the table's own. */
const fieldsOf = (table: TableName) => {
  const own = Object.keys(STORED_ROW_SHAPES[table]).filter(
    (field) => !['id', 'created_at', 'updated_at'].includes(field),
  );
  return ['id', 'created_at', 'updated_at', ...own];
};

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
async function referenced<T extends TableName>(
  ctx: ToolContext,
  table: T,
  id: number,
  path: string,
): Promise<RowOf<T>> {
  const row = await ctx.store.rows.get(ctx.siteId, table, id);
  if (!row) throw invalid(path, `no ${table} row with id ${id}`);
  return row;
}

/** `raw` parsed with a table's fields schema; `400` naming each bad field under `row`. */
function parseFields<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const parsed = z.safeParse(schema, raw);
  if (parsed.success) return parsed.data;
  throw validationError(
    'body',
    parsed.error.issues.map((issue) => ({ ...issue, path: ['row', ...issue.path] })),
  );
}

const COMPETITOR_WARNINGS = {
  active: `This competitor row is incomplete: it counts toward the cap of ${LIMITS.activeCompetitors}, but its monitoring has not started, so it has no backlink profile until the next daily run. add_competitor with its domain completes it (monitoring starts at once); add_competitor is the way to add a competitor.`,
  inactive:
    'This competitor row is inactive: it takes no place under the cap and is not monitored. add_competitor with its domain tracks it.',
};

/**
 * Stores a row after the table's own rules: normalized keys, defaults, references. A field the rules
 * set keeps its place in the row, one they add comes after the caller's (rows are shown as stored).
 */
async function insertRow(ctx: ToolContext, table: TableName, raw: Record<string, unknown>) {
  const now = ctx.now.toISOString();
  const { rows } = ctx.store;
  switch (table) {
    case 'cm_keywords': {
      const fields = parseFields(TABLE_FIELDS.cm_keywords, raw);
      const locale = fields.locale ?? (await siteOf(ctx)).locale;
      if (fields.page_id !== null) await referenced(ctx, 'cm_pages', fields.page_id, 'row.page_id');
      const row = { ...fields, keyword: normalizeKeyword(fields.keyword), locale, data_source: 'caller' };
      return { row: await rows.insert(ctx.siteId, table, row, now), warnings: [] };
    }
    case 'cm_pages': {
      const fields = parseFields(TABLE_FIELDS.cm_pages, raw);
      const row = {
        ...fields,
        ...(fields.primary_keyword === undefined ? {} : { primary_keyword: normalizeKeyword(fields.primary_keyword) }),
        secondary_keywords: fields.secondary_keywords.map(normalizeKeyword),
      };
      if (fields.topic_id !== undefined) await referenced(ctx, 'cm_topics', fields.topic_id, 'row.topic_id');
      return { row: await rows.insert(ctx.siteId, table, row, now), warnings: [] };
    }
    case 'cm_topic_keywords': {
      const fields = parseFields(TABLE_FIELDS.cm_topic_keywords, raw);
      await referenced(ctx, 'cm_topics', fields.topic_id, 'row.topic_id');
      const keyword = await referenced(ctx, 'cm_keywords', fields.keyword_id, 'row.keyword_id');
      const row = { ...fields, score: fields.score ?? rowScore(keyword) };
      return { row: await rows.insert(ctx.siteId, table, row, now), warnings: [] };
    }
    case 'cm_competitors': {
      const fields = parseFields(TABLE_FIELDS.cm_competitors, raw);
      const row = { ...fields, domain: competitorDomain(fields.domain, 'row.domain') };
      const warning = row.active ? COMPETITOR_WARNINGS.active : COMPETITOR_WARNINGS.inactive;
      return { row: await insertCompetitor(ctx, row), warnings: [warning] };
    }
    case 'cm_topics': {
      const row = parseFields(TABLE_FIELDS.cm_topics, raw);
      return { row: await rows.insert(ctx.siteId, table, row, now), warnings: [] };
    }
  }
}

const alreadyExists = (table: TableName, id: number) =>
  new ApiError('already_exists', `${table} already has that row: id ${id}`, { table, id });

export async function dbInsert(ctx: ToolContext, input: DbInsertInput) {
  try {
    const { row, warnings } = await insertRow(ctx, input.table, input.row);
    return { data_source: DATABASE, table: input.table, row, warnings };
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
  // Decoded as its table's row: a competitor's domain is a string.
  if (input.table === 'cm_competitors' && typeof deleted.domain === 'string')
    await untrackCompetitor(ctx, deleted.domain);
  // A topic's or page's rank tracking goes with it (a keyword's goes with its row: tracked keywords are rows).
  if (input.table === 'cm_topics' || input.table === 'cm_pages')
    await ctx.store.ranks.untrack(ctx.siteId, { type: input.table === 'cm_topics' ? 'topic' : 'page', id: input.id });
  const cascaded: Record<string, number> = {};
  const cascade = CASCADES[input.table];
  if (cascade) {
    const linked = await ctx.store.rows.byField(ctx.siteId, cascade.table, cascade.field, input.id);
    await Promise.all(linked.map((row) => ctx.store.rows.delete(ctx.siteId, cascade.table, row.id)));
    cascaded[cascade.table] = linked.length;
  }
  return { data_source: DATABASE, table: input.table, id: input.id, deleted: true as const, cascaded };
}
