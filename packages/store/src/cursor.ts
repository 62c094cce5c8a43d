import { fieldError, type ApiError } from '@cm/contract';

/* A cursor carries only sort-key positions; the partition is always rebuilt from the caller's own site. */

export const encodeCursor = (parts: readonly string[]): string =>
  Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

/** The `count` positions in a cursor this service returned; `400` for anything else. */
export function decodeCursor(cursor: string, count: number, where = 'query'): string[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts.length === count && parts.every((p) => typeof p === 'string')) return parts as string[];
  } catch {
    // fall through to the error below
  }
  throw invalidCursor(where);
}

/** `where` is the part of the request that carried the cursor: `query` or `body`. */
export const invalidCursor = (where = 'query'): ApiError => fieldError(where, 'cursor', 'not a cursor this listing returned');
