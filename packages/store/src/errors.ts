import { propertyOf, type TableName } from '@cm/contract';

/* What the store refuses, said in the store's terms; the HTTP layer (runtime) decides the status. */

export class StoreError extends Error {}

/** A listing's cursor that this store never returned, or one from another listing. */
export class InvalidCursor extends StoreError {
  constructor() {
    super('not a cursor this listing returned');
    this.name = 'InvalidCursor';
  }
}

/** The unique value is taken by another row. */
export class RowConflict extends StoreError {
  constructor(
    readonly table: TableName,
    readonly existingId: number,
  ) {
    super(`${table} already has that row (id ${existingId})`);
    this.name = 'RowConflict';
  }
}

/** DynamoDB did not answer (a timeout, a refused or reset connection), or answered that it cannot serve now, after the client's retries. */
export class StoreUnavailable extends StoreError {
  constructor(cause: unknown) {
    super(`the table cannot be reached: ${errorFacts(cause).message}`, { cause });
    this.name = 'StoreUnavailable';
  }
}

/** DynamoDB refused an item over its 400 KB limit: what the caller sent was too large to store, and nothing of it was written by that write. */
export class ItemTooLarge extends StoreError {
  constructor(cause: unknown) {
    super(`an item would be over DynamoDB's 400 KB: ${errorFacts(cause).message}`, { cause });
    this.name = 'ItemTooLarge';
  }
}

/** Whether DynamoDB refused a write for an item's size ("Item size has exceeded…", "Item size to update has exceeded…"). */
export const isItemTooLarge = (error: unknown): boolean => {
  const { name, message } = errorFacts(error);
  return name === 'ValidationException' && /item size/i.test(message);
};

/** A stored item that is not what its kind must be: a bug or a hand edit, never the caller's fault (500). */
export class CorruptItem extends StoreError {
  constructor(
    readonly kind: string,
    readonly key: string,
    problem: string,
  ) {
    super(`corrupt ${kind} item ${key}: ${problem}`);
    this.name = 'CorruptItem';
  }
}

/** What a thrown value says of itself; the SDK's errors may come from another realm, so no instanceof. */
export function errorFacts(error: unknown): { name: string; code: string; message: string; fault: string } {
  const said = (field: string): string => {
    const value = propertyOf(error, field);
    return typeof value === 'string' ? value : '';
  };
  return { name: said('name'), code: said('code'), message: said('message'), fault: said('$fault') };
}
