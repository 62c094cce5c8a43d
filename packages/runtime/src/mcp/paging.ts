import { Bug } from '@cm/core';
import { fieldError, isJsonObject, type McpToolName } from '@cm/contract';
import { getConfig } from '../config';
import { hasOwnCursor } from './tool-kinds';
import { invokeTool, type Caller, type Json } from './route-calls';

/*
 * A tool result within MCP_RESULT_MAX_BYTES (docs/api.md#mcp-results). db_select pages by its own
 * cursor. Any other result over the size is kept whole for a day and answered page by page: its
 * largest list in slices, with a next_cursor the tool takes back, and a resource_link to the whole;
 * nothing is dropped, and a page costs nothing (it is read from the kept result, not run again).
 */

/** The URI of a kept result's resource, before its id (docs/api.md#mcp-results). */
export const RESULTS_URI = 'cm://results/';

/** A kept result's id as the store makes it (128 random bits, base64url), as a pattern for cursors, URIs and task ids. */
export const RESULT_ID = '[A-Za-z0-9_-]{22}';

/** A cursor: the kept result's id and the offset of the page's first item. */
const resultCursor = (resultId: string, offset: number): string => `${resultId}.${offset}`;
const CURSOR = new RegExp(`^(${RESULT_ID})\\.(\\d{1,9})$`);
function readResultCursor(cursor: string): { resultId: string; offset: number } | null {
  const [, resultId, offset] = CURSOR.exec(cursor) ?? [];
  return resultId && offset ? { resultId, offset: Number(offset) } : null;
}

/** How long a large result is kept for its pages and resource. */
export const KEEP_RESULT_SECONDS = 24 * 3600;
/** The same, in words. */
export const KEPT_FOR = `${KEEP_RESULT_SECONDS / 3600} hours`;

/** The result a tool's JSON may be at most, in bytes, before it is paged. */
export const resultMaxBytes = (): number => getConfig().mcpResultMaxBytes;

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The longest list in `node` or the objects in it (not inside lists), by the path of keys to it. */
function longestList(node: Json, path: string[] = []): { path: string[]; bytes: number } | null {
  let best: { path: string[]; bytes: number } | null = null;
  for (const [key, child] of Object.entries(node)) {
    const found = Array.isArray(child)
      ? { path: [...path, key], bytes: sizeOf(child) }
      : isJsonObject(child)
        ? longestList(child, [...path, key])
        : null;
    if (found && (!best || found.bytes > best.bytes)) best = found;
  }
  return best;
}

/** The object that holds the list at `path`, and the list. */
function listAt(result: Json, path: readonly string[]): { parent: Json; key: string; items: unknown[] } | null {
  let parent: unknown = result;
  for (const key of path.slice(0, -1)) parent = isJsonObject(parent) ? parent[key] : undefined;
  const key = path.at(-1);
  if (!isJsonObject(parent) || key === undefined) return null;
  const items = parent[key];
  return Array.isArray(items) ? { parent, key, items } : null;
}

/** What a page of a kept result says of itself, beside the result's own fields. */
export interface PageInfo {
  field: string;
  offset: number;
  returned: number;
  total: number;
  result_uri: string;
}

/**
 * The page of `result` at `offset`: the result with the list at `path` cut to the items from
 * `offset` that fit in `max` bytes (at least one), `next_cursor` and `page`.
 */
function pageOf(result: Json, resultId: string, path: readonly string[], offset: number, max: number): Json {
  const copy = structuredClone(result);
  const at = listAt(copy, path);
  if (!at) throw fieldError('arguments', 'cursor', 'it does not fit this result: call the tool again without it');
  const { parent, key, items } = at;
  if (offset > 0 && offset >= items.length)
    throw fieldError('arguments', 'cursor', `it is past the end of the result (${items.length} items)`);
  const pageWith = (count: number): Json => {
    parent[key] = items.slice(offset, offset + count);
    const end = offset + count;
    const page: PageInfo = {
      field: path.join('.'),
      offset,
      returned: Math.min(count, items.length - offset),
      total: items.length,
      result_uri: `${RESULTS_URI}${resultId}`,
    };
    return { ...copy, next_cursor: end < items.length ? resultCursor(resultId, end) : null, page };
  };
  // The most items that fit: a binary search over the count, each try one JSON.stringify.
  let low = 1;
  let high = Math.max(1, items.length - offset);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sizeOf(pageWith(mid)) <= max) low = mid;
    else high = mid - 1;
  }
  return pageWith(low);
}

/** A result and what `_meta` says of its size. */
export interface Fitted {
  result: Json;
  note?: Json;
  /** The kept whole, when the result was paged: its id. */
  resultId?: string;
}

async function pagedByLimit(caller: Caller, args: Json, result: Json, rows: unknown[], max: number): Promise<Fitted> {
  let limit = rows.length;
  let page = result;
  let pageSize = sizeOf(result);
  while (pageSize > max && limit > 1) {
    limit = Math.max(1, Math.floor((limit * max) / pageSize / 1.1));
    page = await invokeTool(caller, 'db_select', { ...args, limit });
    pageSize = sizeOf(page);
  }
  return {
    result: page,
    note: {
      paged: true,
      limit,
      max_bytes: max,
      hint: 'The result was over the size limit: fewer rows were returned; call again with next_cursor for the rest',
    },
  };
}

/** A result within the size limit: as it is, db_select with a smaller limit, or the first page of the kept whole. */
export async function fitted(caller: Caller, name: McpToolName, args: Json, result: Json): Promise<Fitted> {
  const max = resultMaxBytes();
  if (sizeOf(result) <= max) return { result };
  if (name === 'db_select' && Array.isArray(result.rows) && result.rows.length > 1)
    return pagedByLimit(caller, args, result, result.rows, max);
  // A tool with a cursor of its own pages by it: its one row over the limit is answered whole.
  if (hasOwnCursor(name)) return { result, note: overMax(max, 'one row is answered whole') };
  const list = longestList(result);
  if (!list) return { result, note: overMax(max, 'it has no list to page, so it is answered whole') };
  const json = JSON.stringify(result);
  const resultId = await caller.results.keep(caller.siteId, name, json, new Date(), KEEP_RESULT_SECONDS);
  return pageNote(pageOf(result, resultId, list.path, 0, max), resultId, max);
}

/** What `_meta` says of a reply that is over the size limit all the same: nothing is cut to make it fit. */
const overMax = (max: number, why: string): Json => ({
  over_max_bytes: true,
  max_bytes: max,
  hint: `The result is over the size limit: ${why}`,
});

function pageNote(page: Json, resultId: string, max: number): Fitted {
  return {
    result: page,
    resultId,
    note: {
      paged: true,
      ...(sizeOf(page) > max ? { over_max_bytes: true } : {}),
      max_bytes: max,
      hint: 'The result was over the size limit: this is one page of it. Call the same tool with { cursor: next_cursor } for the next page (free: no provider is called again), or read the resource page.result_uri.',
    },
  };
}

/** The page a `cursor` of a kept result names, for the tool it was answered by; 400 validation_failed when it is unknown or gone. */
export async function nextPage(caller: Caller, name: McpToolName, cursor: string): Promise<Fitted> {
  const at = readResultCursor(cursor);
  const kept = at && (await caller.results.read(caller.siteId, at.resultId, new Date()));
  if (!at || !kept || kept.tool !== name)
    throw fieldError(
      'arguments',
      'cursor',
      `it names no result of ${name} that is still kept (results are kept ${KEPT_FOR}): call the tool again without it`,
    );
  const result: unknown = JSON.parse(kept.json);
  if (!isJsonObject(result)) throw new Bug(`kept result ${at.resultId} is not a JSON object`);
  const list = longestList(result);
  if (!list) throw new Bug(`kept result ${at.resultId} has no list to page`);
  return pageNote(pageOf(result, at.resultId, list.path, at.offset, resultMaxBytes()), at.resultId, resultMaxBytes());
}
