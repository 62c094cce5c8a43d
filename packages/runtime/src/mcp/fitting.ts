import { getConfig } from '../config';
import { invokeTool, type Caller, type Json } from './route-calls';

/* A tool result within MCP_RESULT_MAX_BYTES: db_select paged, any other result's largest list cut. */

/** The result a tool's JSON may be at most, in bytes, before it is paged or cut. */
const resultMaxBytes = (): number => getConfig().mcpResultMaxBytes;

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The longest array in `value` (a path of keys to it), the one to cut when a result is too large. */
function longestArray(value: unknown, path: string[] = []): { path: string[]; length: number; bytes: number } | null {
  if (!value || typeof value !== 'object') return null;
  let best: { path: string[]; length: number; bytes: number } | null = null;
  if (Array.isArray(value)) best = { path, length: value.length, bytes: sizeOf(value) };
  const entries = Array.isArray(value) ? [] : Object.entries(value as Json);
  for (const [key, child] of entries) {
    const found = longestArray(child, [...path, key]);
    if (found && (!best || found.bytes > best.bytes)) best = found;
  }
  return best;
}

/**
 * A result within the size limit. db_select and find_pages page: the call runs again with a smaller
 * limit and its next_cursor continues. Any other result has its largest array cut to fit, and says so.
 */
export async function fitted(
  caller: Caller,
  name: string,
  args: Json,
  result: Json,
): Promise<{ result: Json; note?: Json }> {
  const max = resultMaxBytes();
  const size = sizeOf(result);
  if (size <= max) return { result };
  if (name === 'db_select' && Array.isArray(result.rows) && result.rows.length > 1) {
    let limit = result.rows.length;
    let page = result;
    let pageSize = size;
    while (pageSize > max && limit > 1) {
      limit = Math.max(1, Math.floor((limit * max) / pageSize / 1.1));
      page = await invokeTool(caller, name, { ...args, limit });
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
  const cut = longestArray(result);
  if (!cut || cut.path.length === 0) return { result };
  const copy = structuredClone(result);
  const parent = cut.path.slice(0, -1).reduce<Json>((node, key) => node[key] as Json, copy);
  const key = cut.path[cut.path.length - 1]!;
  const items = parent[key] as unknown[];
  const total = items.length;
  let keep = Math.floor((total * max) / size);
  parent[key] = items.slice(0, keep);
  while (keep > 0 && sizeOf(copy) > max) parent[key] = items.slice(0, --keep);
  return {
    result: copy,
    note: {
      truncated: { field: cut.path.join('.'), returned: keep, total },
      max_bytes: max,
      hint: 'The result was over the size limit and was cut; ask for less (a smaller limit or scope)',
    },
  };
}
