import * as z from 'zod/mini';
import { InvalidCursor } from './errors';

/* A cursor carries only sort-key positions; the partition is always rebuilt from the caller's own site. */

export const encodeCursor = (parts: readonly string[]): string =>
  Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

/** A listing's positions: one sort key, or an index's sort key and the table's. */
export const ONE_POSITION = z.tuple([z.string()]);
export const TWO_POSITIONS = z.tuple([z.string(), z.string()]);

/** The positions in a cursor this store returned, in the listing's shape; InvalidCursor for anything else. */
export function decodeCursorPositions<T>(cursor: string, positions: z.ZodMiniType<T>): T {
  try {
    const parsed = z.safeParse(positions, JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: the error below
  }
  throw new InvalidCursor();
}
