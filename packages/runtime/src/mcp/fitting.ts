import { isJsonObject } from '@cm/contract';
import { getConfig } from '../config';
import { invokeTool, type Caller, type Json } from './route-calls';

/* A tool result within MCP_RESULT_MAX_BYTES: db_select paged, any other result's largest list cut. */

/** The result a tool's JSON may be at most, in bytes, before it is paged or cut. */
const resultMaxBytes = (): number => getConfig().mcpResultMaxBytes;

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** An array in a result: the object that holds it, its key there, and the path of keys to it. */
interface ArrayAt {
  parent: Json;
  key: string;
  path: string[];
  items: unknown[];
  bytes: number;
}

/** The longest array in `node` or the objects in it (not inside arrays), the one to cut when a result is too large. */
function longestArray(node: Json, path: string[] = []): ArrayAt | null {
  let best: ArrayAt | null = null;
  for (const [key, child] of Object.entries(node)) {
    const found = Array.isArray(child)
      ? { parent: node, key, path: [...path, key], items: child, bytes: sizeOf(child) }
      : isJsonObject(child)
        ? longestArray(child, [...path, key])
        : null;
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
  // Cut in a copy: the array found there is the copy's own.
  const copy = structuredClone(result);
  const cut = longestArray(copy);
  if (!cut) return { result };
  const { parent, key, items } = cut;
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
