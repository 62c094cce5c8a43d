/** What a page listing reads from the indexes; the page documents stay out of them. */
const LISTING_ATTRIBUTES = ['id', 'slug', 'title', 'status', 'deleted', 'updated_at'] as const;

/**
 * What the index of live pages has of each: what a card of it shows on the site's listing pages and
 * feed, and what its sitemap entry says (docs/api.md#listing-pages).
 */
const LIVE_ATTRIBUTES = [
  'id',
  'type',
  'slug',
  'title',
  'card_text',
  'category',
  'created_at',
  'visible_at',
  'noindex',
  'canonical_url',
] as const;

/** The one table's shape; the CDK stack and the local stack both create it from this. */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expires_at',
  /** Each index with what it projects besides the keys: every attribute, or those named. */
  indexes: [
    // Pages of a type, newest updated_at first.
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: LISTING_ATTRIBUTES },
    // Pages of a type and status, newest updated_at first.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: LISTING_ATTRIBUTES },
    // Rows of a cm_* table by the value of an indexed field (first and second indexed field), by id.
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'all' },
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projection: 'all' },
    // A site's live pages of a type, newest first publish first: only a page readers can reach is in it.
    { name: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk', projection: LIVE_ATTRIBUTES },
    // A site's live pages first published in a month, the latest visible change first: a month sitemap's
    // lastmod in one item (its id only: what is read is the key).
    { name: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'visible_at', projection: ['id'] },
  ],
} as const;

/** An index of the table: its name and key attributes. */
export type TableIndex = (typeof TABLE.indexes)[number];
/** The indexes by what they index, so their attribute names are written once (above). */
export const [PAGES_BY_UPDATED, PAGES_BY_STATUS, ROWS_BY_FIRST_FIELD, ROWS_BY_SECOND_FIELD, LIVE_PAGES, LIVE_BY_MONTH] =
  TABLE.indexes;
