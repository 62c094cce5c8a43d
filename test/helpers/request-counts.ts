/*
 * DynamoDB requests of a path, as the tests count them on the local stack and
 * docs/architecture/storage.md's round trips state them (test/infra/doc-figures-storage.test.ts).
 */
export const COUNTED_REQUESTS = {
  /** An OAuth access token the container has not seen: its GetItem, then its key's and its site's at once. */
  tokenFirstSeen: 3,
  /** A token whose key the container looked up within its cache time: the token's GetItem alone. */
  tokenKeyCached: 1,
  /** A publish whose content, links and sections did not change: its UpdateItem. */
  publishUnchanged: 1,
  /**
   * A publish whose content changed (links and sections not): its UpdateItem, then in one round trip the
   * PutItem of the revision it keeps of the version it replaced and the Query of the page's revision keys,
   * then the GetItem of the page's refresh-queue pointer (a page not in the queue: nothing more).
   */
  publishChangedContent: 4,
  /**
   * A publish with a primary keyword no other page has (content, links and sections unchanged): its
   * UpdateItem, then in one round trip the PutItem of its keyword's item and the Query of the keyword's pages.
   */
  publishPrimaryKeyword: 3,
  /** A page read by id: its Query. */
  readById: 1,
  /** A new page without links published with a schedule: its scheduled changes' BatchWriteItem, then its UpdateItem. */
  publishScheduled: 2,
  /** The page schedule's sweep with nothing due: its cursor's GetItem, the last and this minute's Queries, the cursor's UpdateItem. */
  scheduleSweepIdle: 4,
} as const;
