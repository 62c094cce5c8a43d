import * as z from 'zod/mini';
import { CorruptItem } from './errors';

/*
 * The one place a DynamoDB item becomes a type: each item kind has a schema in a `*.decoder.ts` file
 * beside the module that reads it, and `decodeItem` turns an item into its type or throws CorruptItem
 * naming the item's key. Item schemas are loose: attributes a newer version added are kept, not refused.
 */

/** An item's key as its kind's error names it (`pk`/`sk` when the read returned them). */
const keyOf = (item: unknown, key?: Record<string, unknown>): string => {
  const named = key ?? (typeof item === 'object' && item !== null ? item : {});
  return 'pk' in named ? `${String(named.pk)} ${String('sk' in named ? named.sk : '')}` : '(key not read)';
};

export function decodeItem<S extends z.ZodMiniType>(
  kind: string,
  schema: S,
  item: unknown,
  key?: Record<string, unknown>,
): z.output<S> {
  const parsed = z.safeParse(schema, item);
  if (parsed.success) return parsed.data;
  const problem = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`)
    .join('; ');
  throw new CorruptItem(kind, keyOf(item, key), problem);
}

/** Attribute types the document client returns. */
export const stringSet = z.custom<Set<string>>(
  (value) => value instanceof Set && [...value].every((v) => typeof v === 'string'),
);
export const binary = z.custom<Uint8Array>((value) => value instanceof Uint8Array);

/**
 * A loose object whose attributes keep the order they were stored in (a loose object's parse puts its
 * shape's first): for what a reply passes on as stored, such as a cm_* row.
 */
export const inStoredOrder = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z.intersection(z.record(z.string(), z.unknown()), z.looseObject(shape));
