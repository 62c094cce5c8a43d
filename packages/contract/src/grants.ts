/** What a function may do to the table, from none to reading, writing and deleting items. */
export type TableAccess = 'none' | 'read' | 'readBatchWrite' | 'readWrite' | 'readWriteDelete';

/**
 * What a function may do: its table access, the worker queues it sends to (`Q`: the worker names, or
 * while the queues are being declared, the names as written), the secrets it reads. The IAM actions of
 * each table access are infra's (infra/access.ts).
 */
export interface FunctionGrants<Q extends string> {
  table: TableAccess;
  sendsTo?: readonly Q[];
  /** DataForSEO's credentials: the functions that call it. */
  secrets?: readonly 'dataforseo'[];
}
