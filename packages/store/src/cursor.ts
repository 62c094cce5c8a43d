import { InvalidCursor } from './errors';

/* A cursor carries only sort-key positions; the partition is always rebuilt from the caller's own site. */

export const encodeCursor = (parts: readonly string[]): string =>
  Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

/** The `count` positions in a cursor this store returned; InvalidCursor for anything else. */
export function decodeCursor(cursor: string, count: number): string[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts.length === count && parts.every((p) => typeof p === 'string')) return parts;
  } catch {
    // fall through to the error below
  }
  throw new InvalidCursor();
}
