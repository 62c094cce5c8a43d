/** The one table's shape; the CDK stack and the local stack both create it from this. */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expires_at',
  indexes: [
    // Pages of a type, newest updated_at first.
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'listing' },
    // Pages of a type and status, newest updated_at first.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'listing' },
    // Rows of a cm_* table by the value of an indexed field (first and second indexed field), by id.
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'all' },
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projection: 'all' },
  ],
  /** What a page listing reads from the indexes; the page documents stay out of them. */
  listingAttributes: ['id', 'slug', 'title', 'status', 'deleted', 'updated_at'],
} as const;
