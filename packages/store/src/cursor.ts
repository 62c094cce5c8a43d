import * as z from 'zod/mini';
import { InvalidCursor } from './errors';

/* A cursor carries only sort-key positions; the partition is always rebuilt from the caller's own site. */

export const encodeCursor = (parts: readonly string[]): string =>
  Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

/** A sort key: DynamoDB refuses one over 1024 bytes, so a cursor naming a longer one is no cursor of ours (not a 500). */
const Position = z.string().check(z.refine((sk) => Buffer.byteLength(sk, 'utf8') <= 1024));

/** A listing's positions: one sort key, or an index's sort key and the table's. */
export const ONE_POSITION = z.tuple([Position]);
export const TWO_POSITIONS = z.tuple([Position, Position]);

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
