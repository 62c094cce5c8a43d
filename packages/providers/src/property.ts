/** A property of a value whose type says nothing of it (a caught error, an untyped library's object); undefined when it has none. */
export const propertyOf = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
